from django.core.management.base import BaseCommand

from catalog.services import SEED_CATALOG, catalog_load_seed


class Command(BaseCommand):
    help = "Load the shipped NVIDIA networking catalog with reference prices (idempotent)."

    def handle(self, *args, **options):
        result = catalog_load_seed()
        self.stdout.write(f"Catalog from {SEED_CATALOG.name}: {result}.")
