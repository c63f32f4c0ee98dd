"""Safe retries: `Idempotency-Key` on every POST, PUT, PATCH and DELETE of the API.

One code path for every write (IdempotentViewMixin, part of ApiViewSetMixin): the key is claimed
after authentication, permissions and throttling, the handler runs, and its answer is stored.

- same key, same method, path and body: the first answer again (header `Idempotent-Replayed:
  true`, with its `ETag` and `Location`); bodies are compared as parsed JSON (a canonical dump
  of request.data), so key order and whitespace do not matter;
- same key, another body (or method, or path): 422 `idempotency_key_reused`; the key is spent;
- same key while the first request still runs: 409 `idempotency_key_in_use`, retry later;
- keys belong to one token (or one signed-in user) and expire after 24 hours;
- a replay says the language its answer is in (`Content-Language`, the first request's: the
  answer is kept as it was worded), unless its view words it again in the retry's language
  (idempotent_replay: an unsaved design's warnings and advice).

A request that ends in an exception (a 4xx raised by validation or a rule, or a crash) or in a
5xx stores nothing, so the client can fix the body or simply retry with the same key. Only JSON
answers are stored: a download (CSV, SVG, zip) is computed again on a retry, which is harmless
because the endpoints that stream files store nothing. An answer holding a secret shown once
(a new share link's token: `idempotency_unstored_actions`) is not stored either.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json

from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from integrations.models import ApiToken, IdempotencyRecord, IdempotencyStatus

HEADER = "Idempotency-Key"
KEY_MAX_LENGTH = 255
TTL = dt.timedelta(hours=24)
REPLAYED_HEADERS = ("ETag", "Location")
METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class IdempotencyKeyReused(APIException):
    status_code = 422
    default_detail = "This Idempotency-Key was used with a different request."
    default_code = "idempotency_key_reused"


class IdempotencyKeyInUse(APIException):
    status_code = 409
    default_detail = "A request with this Idempotency-Key is still running; retry later."
    default_code = "idempotency_key_in_use"


class _Replay(Exception):  # noqa: N818 - control flow, never shown: carries the stored answer
    def __init__(self, response: Response):
        super().__init__()
        self.response = response


def _owner(request) -> str:
    if isinstance(request.auth, ApiToken):
        return f"token:{request.auth.pk}"
    return f"user:{request.user.pk}"


def fingerprint(method: str, path: str, data) -> str:
    """The request as compared between retries: method, full path and the parsed body."""
    body = json.dumps(_comparable(data), sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256()
    for part in (method, path, body):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def _comparable(data):
    """A form body (an upload) with each file as its name, size and SHA-256: as text, a file
    is its name only, so another file of the same name would replay the first answer."""
    if not hasattr(data, "lists"):
        return data
    return {
        key: [_file_digest(v) if isinstance(v, UploadedFile) else v for v in values]
        for key, values in data.lists()
    }


def _file_digest(upload: UploadedFile) -> dict:
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return {"name": upload.name, "size": upload.size, "sha256": digest.hexdigest()}


def _claim(request, key: str) -> IdempotencyRecord:
    """The new in-progress record; raises _Replay or an error when the key was used before."""
    owner = _owner(request)
    expected = fingerprint(request.method, request.get_full_path(), request.data)
    IdempotencyRecord.objects.filter(owner=owner, created__lt=timezone.now() - TTL).delete()
    try:
        with transaction.atomic():
            return IdempotencyRecord.objects.create(
                owner=owner, user=request.user, key=key, fingerprint=expected
            )
    except IntegrityError:
        pass
    record = IdempotencyRecord.objects.filter(owner=owner, key=key).first()
    if record is None:  # expired and purged between the two statements
        raise IdempotencyKeyInUse("This Idempotency-Key is being reused; retry the request.")
    if record.fingerprint != expected:
        raise IdempotencyKeyReused()
    if record.status == IdempotencyStatus.IN_PROGRESS:
        raise IdempotencyKeyInUse()
    response = Response(
        json.loads(record.response_body) if record.response_body else None,
        status=record.response_status,
        headers=record.response_headers,
    )
    response["Idempotent-Replayed"] = "true"
    raise _Replay(response)


class IdempotentViewMixin:
    # Actions whose answer holds a secret shown once (a share link's token): never stored, so a
    # retry after the first finished runs again (a concurrent one still gets 409).
    idempotency_unstored_actions: tuple[str, ...] = ()
    _idempotency_record: IdempotencyRecord | None = None

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        key = request.headers.get(HEADER)
        if key is None or request.method not in METHODS:
            return
        if not key.strip() or len(key) > KEY_MAX_LENGTH:
            raise ValidationError({HEADER: [f"Use 1 to {KEY_MAX_LENGTH} characters."]})
        self._idempotency_record = _claim(request, key)

    def idempotent_replay(self, response: Response) -> None:
        """A view's chance to word a replayed answer again in the retry's language (and say
        so in its Content-Language); by default the first answer, as it was."""

    def handle_exception(self, exc):
        if isinstance(exc, _Replay):
            self.idempotent_replay(exc.response)
            return exc.response
        self._release_idempotency_key()
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        record, self._idempotency_record = self._idempotency_record, None
        if record is None:
            return response
        unstored = getattr(self, "action", None) in self.idempotency_unstored_actions
        if response.status_code >= 500 or not isinstance(response, Response) or unstored:
            record.delete()  # a crash, a download or a secret: the retry runs again
            return response
        record.status = IdempotencyStatus.DONE
        record.response_status = response.status_code
        record.response_body = (
            JSONRenderer().render(response.data).decode() if response.data is not None else ""
        )
        record.response_headers = {h: response[h] for h in REPLAYED_HEADERS if h in response}
        # The language the answer is worded in: LocaleMiddleware would label a replay with the
        # retry's (it sets Content-Language only after this, and only where none is set).
        record.response_headers.setdefault(
            "Content-Language", response.get("Content-Language") or translation.get_language()
        )
        record.save(
            update_fields=["status", "response_status", "response_body", "response_headers"]
        )
        return response

    def _release_idempotency_key(self) -> None:
        record, self._idempotency_record = self._idempotency_record, None
        if record is not None:
            record.delete()


def idempotent(handler):
    """Kept for old imports: every write of an ApiViewSetMixin viewset is idempotent already."""
    return handler


def document_idempotency_key(result, generator, request, public):
    """drf-spectacular postprocessing hook: `Idempotency-Key` on every write of /api/, with its
    409 and 422 answers."""
    parameter = {
        "in": "header",
        "name": HEADER,
        "required": False,
        "schema": {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH},
        "description": "Any unique string (a UUID): a retry with the same key, method, path and "
        "body (compared as parsed JSON) gets the first answer again, with "
        "`Idempotent-Replayed: true`; with another body 422; while the first still runs 409. "
        "Kept 24 h per token. Answers that are errors or downloads are not stored.",
    }
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/"):
            continue
        for method, operation in operations.items():
            if method.upper() not in METHODS or not isinstance(operation, dict):
                continue
            parameters = operation.setdefault("parameters", [])
            if not any(p.get("in") == "header" and p.get("name") == HEADER for p in parameters):
                parameters.append(dict(parameter))
            responses = operation.setdefault("responses", {})
            error = next(
                (responses[c] for c in ("409", "404", "403", "401") if c in responses), None
            )
            for code, text in (
                ("409", "A request with this Idempotency-Key is still running; retry later."),
                ("422", "This Idempotency-Key was used with a different request."),
            ):
                if code not in responses:
                    responses[code] = {"description": text}
                    if error is not None and "content" in error:
                        responses[code]["content"] = error["content"]
    return result
