"""Engine messages that the Django side can translate: an English template and its values.

Pure Python (the engine never imports Django). Templates are marked with ``gettext_noop`` so
``makemessages`` extracts them; ``str(message)`` is the English text the API returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from numbers import Real


def gettext_noop(text: str) -> str:
    """Mark a template for extraction (same name as Django's, so makemessages finds it)."""
    return text


@dataclass(frozen=True, slots=True)
class Message:
    """An English template with ``{name}`` placeholders; a value may itself be a Message."""

    template: str
    params: tuple[tuple[str, object], ...] = ()

    def __str__(self) -> str:
        return self.render(lambda template: template)

    def render(self, translate) -> str:
        """The text with ``translate`` applied to this template and to every nested Message."""
        values = {
            name: value.render(translate) if isinstance(value, Message) else value
            for name, value in self.params
        }
        return translate(self.template).format(**values)

    def as_json(self) -> dict:
        """The message as a snapshot keeps it (JSON), so a page can still translate it."""
        return {
            "template": self.template,
            "params": [[name, _param_json(value)] for name, value in self.params],
        }

    @classmethod
    def from_json(cls, data) -> Message | str:
        """A kept message back; anything but a kept message reads as its text."""
        if not isinstance(data, dict):
            return str(data)
        return cls(
            data["template"],
            tuple(
                (name, cls.from_json(value) if isinstance(value, dict) else value)
                for name, value in data["params"]
            ),
        )


def _param_json(value):
    if isinstance(value, Message):
        return value.as_json()
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, Real | Decimal):  # Fraction, Decimal: a number still, for "{x:g}"
        return float(value)
    return str(value)


def message(template: str, **params: object) -> Message:
    return Message(template, tuple(params.items()))


# Between the items of a list: ", " in English, the enumeration comma "、" in Chinese.
LIST_SEPARATOR = gettext_noop(", ")


def listing(items) -> Message:
    """Names listed in the reader's language: "A01, A02" in English, "A01、A02" in Chinese. The
    separator is a message of its own, translated when the list is rendered (a page, a PDF, a
    kept snapshot), so the engine lists without knowing the language. Django code renders it at
    once: `listing(names).render(gettext)`."""
    names = [str(item) for item in items]
    if not names:
        return message("{none}", none="")
    template = "{sep}".join(f"{{item{i}}}" for i in range(len(names)))
    return message(
        template, sep=Message(LIST_SEPARATOR), **{f"item{i}": n for i, n in enumerate(names)}
    )
