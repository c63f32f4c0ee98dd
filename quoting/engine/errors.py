"""Domain errors shared by the fabric and TCO engines.

Each names the input field and the reason in plain words, so the API can answer a 400 with field
messages and the browser can show the message beside the field.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class InvalidInput(EngineError):
    """One or more inputs are wrong; `errors` maps each field name to its messages."""

    def __init__(self, errors: dict[str, list[str]] | None = None, **field_messages: str) -> None:
        merged: dict[str, list] = {k: list(v) for k, v in (errors or {}).items()}
        for field, message in field_messages.items():
            merged.setdefault(field, []).append(message)
        # A message is a plain string or an engine Message (translatable at the edge): `messages`
        # keeps them as raised, `errors` holds their English text for the API and the commands.
        self.messages = merged
        self.errors = {field: [str(m) for m in messages] for field, messages in merged.items()}
        super().__init__("; ".join(f"{f}: {' '.join(m)}" for f, m in self.errors.items()))

    @classmethod
    def field(cls, field: str, message: str) -> InvalidInput:
        return cls({field: [message]})
