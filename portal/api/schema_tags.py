"""One tag per resource in the OpenAPI document, so generated clients get one module per resource
(products, designs, quotes, webhooks, ...) instead of one module holding every call.

drf-spectacular's default tag is the first path segment, which for /api/v1/... is "api" for every
operation. The tag is read from the path after /api/v1/ instead; an operation that declares its
own tags (extend_schema(tags=[...])) keeps them.
"""

from __future__ import annotations

import re

# Path segment after /api/v1/ -> tag, with the tag's description (SPECTACULAR_SETTINGS["TAGS"]).
TAGS = {
    "products": ("products", "The NVIDIA networking catalog with list prices."),
    "designs": ("designs", "Fabric designs computed from the catalog (not stored)."),
    "install-packs": ("install packs", "Installation packs built by a worker, to poll and fetch."),
    "tco": ("tco", "Effective-compute TCO of fabric options (computed, not stored)."),
    "customers": ("customers", "Companies, scoped to your teams."),
    "contacts": ("contacts", "People at a customer."),
    "projects": ("projects", "A customer's projects and their saved designs."),
    "quotes": ("quotes", "Quotes, their revisions, lines and state changes."),
    "proposals": ("proposals", "Proposal documents (PDF), share links and acceptance."),
    "approvals": ("approvals", "Discount approvals asked of managers."),
    "renewals": ("renewals", "Quotes coming up for renewal."),
    "webhook-endpoints": ("webhooks", "Webhook endpoints, their deliveries and secrets."),
    "events": ("events", "The event feed: every webhook event, to catch up from."),
    "me": ("users", "Who you are, and the users you work with."),
    "users": ("users", "Who you are, and the users you work with."),
}
# Routes under /quotes/{id}/ that belong to another resource.
QUOTE_SUBRESOURCES = {
    "proposal": "proposals",
    "proposals": "proposals",
    "share-links": "proposals",
    "links": "proposals",
    "acceptance": "proposals",
    "signed-copy": "proposals",
    "renewal": "renewals",
}
_PATH = re.compile(r"^/api/v\d+/(?P<first>[^/]+)/(?:\{[^}]+\}/(?P<second>[^/{]+))?")


def tag_of(path: str) -> str | None:
    match = _PATH.match(path)
    if match is None:
        return None
    first, second = match["first"], match["second"]
    if first == "quotes" and second in QUOTE_SUBRESOURCES:
        first = QUOTE_SUBRESOURCES[second]
    entry = TAGS.get(first)
    return entry[0] if entry else first


def spectacular_tags() -> list[dict]:
    """SPECTACULAR_SETTINGS["TAGS"]: each tag once, with its description."""
    seen: dict[str, str] = {}
    for name, description in TAGS.values():
        seen.setdefault(name, description)
    return [{"name": n, "description": d} for n, d in seen.items()]


def tag_operations_by_resource(result, generator, request, public):
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    for path, operations in result.get("paths", {}).items():
        tag = tag_of(path)
        if tag is None:
            continue
        for operation in operations.values():
            # drf-spectacular's default: the first segment after the path prefix ("api", "v1").
            if isinstance(operation, dict) and operation.get("tags", [])[:1] in (
                [],
                ["api"],
                ["v1"],
            ):
                operation["tags"] = [tag]
    result["tags"] = spectacular_tags()
    return result
