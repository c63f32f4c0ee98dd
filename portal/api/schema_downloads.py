"""Downloads (PDF, zip, Excel, SVG) described so that generated clients return them as files.

A generator knows JSON, text and `application/octet-stream`; a response declared only as
`application/pdf` was skipped by openapi-python-client ("Unsupported content_type") and needed a
hand-written override in every CRM. Each download therefore also lists `application/octet-stream`
with the same binary schema — the views answer that Accept with the same bytes — so a client
gets a file whatever its generator, and the specific type still says what the bytes are.
"""

from __future__ import annotations

OCTET_STREAM = "application/octet-stream"
BINARY = {"type": "string", "format": "binary"}


def _is_download(content_type: str) -> bool:
    kind = content_type.split(";")[0].strip().lower()
    return not (kind == "application/json" or kind.endswith("+json") or kind == OCTET_STREAM)


def declare_downloads_binary(result, generator, request, public):
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for response in operation.get("responses", {}).values():
                content = response.get("content") or {}
                downloads = [name for name in content if _is_download(name)]
                if downloads and OCTET_STREAM not in content:
                    for name in downloads:
                        content[name] = {"schema": dict(BINARY)}
                    content[OCTET_STREAM] = {"schema": dict(BINARY)}
    return result
