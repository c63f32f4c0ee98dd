"""python manage.py fabric_as_built --pack DIR --discovered FILE [--json]: the as-built check
from the shell: the pack's cable schedule against what ibnetdiscover printed on site.
Exits 1 when the check finds problems, so a script can stop on it."""

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quoting.engine.errors import InvalidInput
from quoting.engine.install.as_built import compare, parse_discovered, plan_from_pack

SECTIONS = ("miswired", "missing", "unexpected", "degraded", "devices_missing")


def _errors_text(errors: dict[str, list[str]]) -> str:
    return "; ".join(f"{field}: {' '.join(messages)}" for field, messages in errors.items())


def _item_text(item: dict) -> str:
    return ", ".join(f"{key}={value}" for key, value in item.items() if value not in (None, ""))


class Command(BaseCommand):
    help = "Compare ibnetdiscover's output with an installation pack's cable schedule."

    def add_arguments(self, parser):
        parser.add_argument("--pack", type=Path, required=True, help="the unpacked pack")
        parser.add_argument(
            "--discovered", type=Path, required=True, help="what ibnetdiscover printed"
        )
        parser.add_argument("--json", action="store_true", help="print the report as JSON only")

    def handle(self, *args, **options):
        path = options["discovered"]
        try:
            plan = plan_from_pack(options["pack"])
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise InvalidInput.field("discovered", f"cannot read {path}: {error}") from None
            report = compare(plan, parse_discovered(text, path.name))
        except InvalidInput as error:
            raise CommandError(_errors_text(error.errors)) from error
        result = report.as_dict()
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2))
        else:
            summary = result["summary"]
            self.stdout.write(
                f"As planned: {summary['ok']} of {summary['planned_links']} planned links "
                f"({summary['discovered_links']} discovered); problems: {summary['problems']}"
            )
            for section in SECTIONS:
                for item in result[section]:
                    self.stdout.write(f"{section}: {_item_text(item)}")
        if not report.ok:
            sys.exit(1)
