"""The API's JSON parser (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]): DRF's, with a nesting limit.

Python's json module recurses once per level: a body nested 1,000 deep raised RecursionError,
which DRF does not catch (a 500 on every endpoint), and a body just under the interpreter's
limit would parse and then break whatever walks it next (serializers, JSONField storage). No
request of ours nests more than a handful of levels. The depth is read before the body is
parsed (portal.json_nesting): a 5 MB body of arrays nested 500 deep is refused without building
its millions of lists.
"""

from __future__ import annotations

import io

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding

from portal.json_nesting import MAX_JSON_DEPTH, TOO_DEEP, json_nesting_exceeds

__all__ = ["MAX_JSON_DEPTH", "DepthLimitedJSONParser"]


class DepthLimitedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        body = stream.read()
        encoding = get_encoding(parser_context or {})  # a text charset, or a ParseError
        try:
            text = body.decode(encoding)
        except ValueError as exc:  # bytes that are not in that charset
            raise ParseError(f"JSON parse error - {exc}") from None
        if json_nesting_exceeds(text, MAX_JSON_DEPTH):
            raise ParseError(TOO_DEEP)
        return super().parse(io.BytesIO(body), media_type, parser_context)
