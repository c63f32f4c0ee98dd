"""manage.py signing_certificate_dev: the self-signed certificate development signs signed copies
with (var/signing/development.p12), made once; run again it changes nothing. `make run` runs it.
Production configures the seller's own (PROPOSALS_SIGNING_*, docs/operations.md) and refuses
this one."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from proposals.documents.signing import development_certificate_create, seller_certificate

COMMON_NAME = "FabricQuote development signing (self-signed, not for customers)"


class Command(BaseCommand):
    help = "Create the self-signed development signing certificate, unless it exists."

    def handle(self, *args, **options):
        path = Path(settings.DEVELOPMENT_SIGNING_PKCS12)
        if str(path) != str(settings.PROPOSALS_SIGNING_PKCS12):
            # `make run` goes on: the configured certificate signs.
            self.stdout.write(
                "A signing certificate is configured (PROPOSALS_SIGNING_*): no development one "
                "is made."
            )
            return
        made = development_certificate_create(path, common_name=COMMON_NAME)
        seller = seller_certificate()
        self.stdout.write(
            f"{'Created' if made else 'Kept'} {path}: {seller.common_name}, "
            f"SHA-256 {seller.sha256}."
        )
