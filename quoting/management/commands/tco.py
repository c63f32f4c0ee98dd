"""python manage.py tco --input body.json (or - for stdin): the JSON of POST /api/v1/tco/."""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from portal.json_nesting import TOO_DEEP, json_nesting_exceeds
from quoting.designs.services.tco import tco_compute
from quoting.engine.errors import InvalidInput


def _refuse_constant(name: str):
    # Python's json reads NaN and Infinity, which are not JSON; the API refuses them too.
    raise ValueError(f"{name} is not a JSON number")


class Command(BaseCommand):
    help = "Compare fabric options by effective compute and cost (the body of POST /api/v1/tco/)."
    stealth_options = ("stdin",)  # tests pass a stream in place of sys.stdin

    def add_arguments(self, parser):
        parser.add_argument(
            "--input",
            dest="input_path",
            required=True,
            metavar="FILE",
            help="JSON request body; - reads stdin.",
        )

    def handle(self, *args, input_path: str, **options):
        try:
            if input_path == "-":
                text = (options.get("stdin") or sys.stdin).read()
            else:
                with open(input_path, encoding="utf-8") as handle:
                    text = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"Cannot read {input_path}: {error}") from error
        if json_nesting_exceeds(text):  # read before parsing, as the API does
            raise CommandError(f"{input_path} is not valid JSON: {TOO_DEEP}")
        try:
            data = json.loads(text, parse_constant=_refuse_constant)
        except ValueError as error:  # JSONDecodeError, NaN, a 5,000-digit integer
            raise CommandError(f"{input_path} is not valid JSON: {error}") from error
        try:
            result = tco_compute(data=data).as_dict()
        except InvalidInput as error:
            lines = [f"  {field}: {' '.join(messages)}" for field, messages in error.errors.items()]
            raise CommandError("\n".join([f"{input_path} has bad fields:", *lines])) from error
        self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
