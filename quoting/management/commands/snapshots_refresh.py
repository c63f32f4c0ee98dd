"""python manage.py snapshots_refresh: after a deploy that raised SNAPSHOT_VERSION, store the
current snapshot on every saved design and the renderings on every quote revision made before.

Reads never write: until this has run they compute what is missing in memory, on every read.
Run it after `migrate` (make run and the deploy do); a second run finds nothing to do.
"""

from django.core.management.base import BaseCommand

from quoting.designs.services.snapshots import designs_snapshot_refresh
from quoting.quotes.services.snapshots import revisions_snapshot_refresh

BATCH = 100


class Command(BaseCommand):
    help = "Store current snapshots on saved designs and on quote revisions made before."

    def handle(self, *args, **options) -> None:
        designs = revisions = 0
        while done := designs_snapshot_refresh(limit=BATCH):
            designs += done
        while done := revisions_snapshot_refresh(limit=BATCH):
            revisions += done
        self.stdout.write(f"{designs} saved designs and {revisions} quote revisions refreshed.")
