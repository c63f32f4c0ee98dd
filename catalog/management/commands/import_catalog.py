from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.services import CatalogImportError, catalog_csv_text, catalog_import_csv


class Command(BaseCommand):
    help = (
        "Import products and prices from a CSV file. All or nothing: any bad row is "
        "reported with its line number and nothing changes."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="UTF-8 CSV, the columns of export_catalog.")

    def handle(self, *args, file: Path, **options):
        try:
            with file.open("rb") as stream:
                text = catalog_csv_text(stream)
            result = catalog_import_csv(text=text)
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc}") from exc
        except CatalogImportError as exc:
            for error in exc.errors:
                self.stderr.write(f"{file}:{error}")
            raise CommandError(f"{len(exc.errors)} error(s); nothing was imported.") from exc
        self.stdout.write(f"Imported {file}: {result}.")
