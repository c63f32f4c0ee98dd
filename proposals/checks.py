"""Deploy checks of the proposals app (manage.py check --deploy): the signed copy is signed with
the seller's own certificate, one that loads, is in force and was issued by someone else."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from proposals.documents.signing import SigningUnavailable, seller_certificate

# A certificate expiring sooner than this is named, so it is renewed before copies fail.
RENEW_WITHIN = dt.timedelta(days=30)


@register(Tags.security, deploy=True)
def signing_certificate_check(app_configs=None, **kwargs):
    try:
        seller = seller_certificate()
    except SigningUnavailable as exc:
        return [
            Error(
                f"Signed copies cannot be signed: {exc}",
                hint="Configure the seller's certificate (docs/operations.md, Signed copies).",
                id="proposals.E001",
            )
        ]
    if seller.self_signed:
        return [
            Error(
                f"The signing certificate ({seller.common_name}) is self-signed: a customer's "
                f"PDF reader cannot tell it from a forger's.",
                hint="Use a certificate issued to the seller by a certification authority.",
                id="proposals.E002",
            )
        ]
    if getattr(settings, "PROPOSALS_TSA_URL", "") and not getattr(
        settings, "PROPOSALS_TSA_ROOTS", ""
    ):
        return [
            Error(
                "PROPOSALS_TSA_URL is set without PROPOSALS_TSA_ROOTS: the timestamp "
                "authority's root cannot be trusted, so no copy could be signed (B-LT).",
                hint="Set PROPOSALS_TSA_ROOTS to a PEM file of its root certificate.",
                id="proposals.E004",
            )
        ]
    now = dt.datetime.now(dt.UTC)
    if not seller.certificate.not_valid_before_utc <= now < seller.certificate.not_valid_after_utc:
        return [
            Error(
                f"The signing certificate ({seller.common_name}) is not in force now.",
                id="proposals.E003",
            )
        ]
    if seller.certificate.not_valid_after_utc - now < RENEW_WITHIN:
        return [
            Warning(
                f"The signing certificate ({seller.common_name}) expires on "
                f"{seller.certificate.not_valid_after_utc:%Y-%m-%d}: renew it.",
                id="proposals.W001",
            )
        ]
    return []
