"""python manage.py tco --input body.json (or - for stdin): the JSON of POST /api/v1/tco/;
--language zh-hans words what a person reads in it (warnings, assumptions, labels) in Chinese."""

import json
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import translation

from portal.json_nesting import TOO_DEEP, json_nesting_exceeds
from quoting.designs.services.tco import tco_compute, tco_result_in_language
from quoting.engine.errors import InvalidInput
from quoting.engine.messages import Message

LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)  # "en", "zh-hans"


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
        parser.add_argument(  # named and valued as fabric_design's --pack-language
            "--language",
            choices=LANGUAGES,
            default="en",
            help="the words of the warnings, assumptions and labels, and of the field errors "
            "(default: en)",
        )

    def handle(self, *args, input_path: str, language: str = "en", **options):
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
            result = tco_result_in_language(tco_compute(data=data), language)
        except InvalidInput as error:
            with translation.override(language):
                lines = [
                    f"  {field}: {' '.join(_worded(m) for m in messages)}"
                    for field, messages in error.messages.items()
                ]
                head = translation.gettext("%(file)s has bad fields:") % {"file": input_path}
            raise CommandError("\n".join([head, *lines])) from error
        self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))


def _worded(reason) -> str:
    # The engine's reasons are messages where it words them; a serializer's are plain English.
    return reason.render(translation.gettext) if isinstance(reason, Message) else str(reason)
