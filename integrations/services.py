"""Issuing and revoking API tokens."""

from __future__ import annotations

import hashlib
import secrets

from django.utils import timezone

from integrations.models import ApiToken, TokenScope
from portal.models import User

TOKEN_PREFIX = "fq_"  # noqa: S105  (a marker, not a secret)


def token_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def api_token_issue(*, user: User, scope: str, name: str) -> tuple[ApiToken, str]:
    """A new token; the raw value is returned once and never stored."""
    if scope not in TokenScope.values:
        raise ValueError(f"scope must be one of {', '.join(TokenScope.values)}")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name[:100], scope=scope, token_hash=token_hash(raw), prefix=raw[:10]
    )
    return token, raw


def api_token_revoke(*, token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
