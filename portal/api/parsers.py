"""The API's JSON parser (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]): DRF's, with a nesting limit.

Python's json module recurses once per level: a body nested 1,000 deep raised RecursionError,
which DRF does not catch (a 500 on every endpoint), and a body just under the interpreter's
limit would parse and then break whatever walks it next (serializers, JSONField storage). No
request of ours nests more than a handful of levels.
"""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 32


def json_deeper_than(data, limit: int) -> bool:
    """Whether parsed JSON nests objects and arrays more than `limit` levels (iterative, so it
    cannot itself run out of stack)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class DepthLimitedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        too_deep = ParseError(
            f"JSON parse error - objects and arrays may nest at most {MAX_JSON_DEPTH} levels."
        )
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise too_deep from None
        if json_deeper_than(data, MAX_JSON_DEPTH):
            raise too_deep
        return data
