import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from catalog.services import catalog_export_csv


class Command(BaseCommand):
    help = "Export products and default prices as CSV (the import's own format)."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", default="-", help="Output path, or - for stdout.")

    def handle(self, *args, file: str, **options):
        text = catalog_export_csv()
        if file == "-":
            sys.stdout.write(text)
        else:
            Path(file).write_text(text, encoding="utf-8")
            self.stdout.write(f"Wrote {file}.")
