"""Safe retries for POST: `Idempotency-Key` stores the first response and replays it.

- same key, same body: the stored response again (header `Idempotent-Replayed: true`);
- same key, another body: 422; the key is spent on the first body;
- same key while the first request still runs: 409, retry later;
- keys belong to one token (or one signed-in user) and expire after 24 hours.

A request that ends in an exception (a 4xx raised by validation, or a crash) stores nothing, so
the client can fix the body or simply retry with the same key.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json

from django.db import IntegrityError, transaction
from django.http.request import RawPostDataException
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from integrations.models import ApiToken, IdempotencyRecord, IdempotencyStatus

HEADER = "Idempotency-Key"
KEY_MAX_LENGTH = 255
TTL = dt.timedelta(hours=24)
REPLAYED_HEADERS = ("ETag", "Location")


def _owner(request) -> str:
    if isinstance(request.auth, ApiToken):
        return f"token:{request.auth.pk}"
    return f"user:{request.user.pk}"


def _fingerprint(request) -> str:
    try:
        body = request.body
    except RawPostDataException:  # already parsed as a stream: hash its canonical JSON
        body = json.dumps(request.data, sort_keys=True, default=str).encode()
    digest = hashlib.sha256()
    for part in (request.method.encode(), request.get_full_path().encode(), body):
        digest.update(part + b"\0")
    return digest.hexdigest()


def _error(status: int, message: str) -> Response:
    return Response({"detail": message}, status=status)


def _claim(request, key: str) -> IdempotencyRecord | Response:
    """The new in-progress record, or the answer when the key was used before."""
    owner, fingerprint = _owner(request), _fingerprint(request)
    IdempotencyRecord.objects.filter(owner=owner, created__lt=timezone.now() - TTL).delete()
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(
                owner=owner, user=request.user, key=key, fingerprint=fingerprint
            )
    except IntegrityError:
        pass
    record = IdempotencyRecord.objects.filter(owner=owner, key=key).first()
    if record is None:  # expired and purged between the two statements
        return _error(409, "This Idempotency-Key is being reused; retry the request.")
    if record.fingerprint != fingerprint:
        return _error(422, "This Idempotency-Key was used with a different request body.")
    if record.status == IdempotencyStatus.IN_PROGRESS:
        return _error(409, "A request with this Idempotency-Key is still running; retry later.")
    response = Response(
        json.loads(record.response_body) if record.response_body else None,
        status=record.response_status,
        headers=record.response_headers,
    )
    response["Idempotent-Replayed"] = "true"
    return response


def idempotent(handler):
    """Decorate a viewset's POST handler (create or a POST action)."""

    @functools.wraps(handler)
    def run(self, request, *args, **kwargs):
        key = request.headers.get(HEADER)
        if key is None:
            return handler(self, request, *args, **kwargs)
        if not key.strip() or len(key) > KEY_MAX_LENGTH:
            return Response({HEADER: [f"Use 1 to {KEY_MAX_LENGTH} characters."]}, status=400)
        claimed = _claim(request, key)
        if isinstance(claimed, Response):
            return claimed
        try:
            response = handler(self, request, *args, **kwargs)
        except BaseException:
            claimed.delete()
            raise
        if response.status_code >= 500:
            claimed.delete()
            return response
        claimed.status = IdempotencyStatus.DONE
        claimed.response_status = response.status_code
        claimed.response_body = (
            JSONRenderer().render(response.data).decode() if response.data is not None else ""
        )
        claimed.response_headers = {h: response[h] for h in REPLAYED_HEADERS if h in response}
        claimed.save(
            update_fields=["status", "response_status", "response_body", "response_headers"]
        )
        return response

    return run
