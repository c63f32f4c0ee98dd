"""Engine messages that the Django side can translate: an English template and its values.

Pure Python (the engine never imports Django). Templates are marked with ``gettext_noop`` so
``makemessages`` extracts them; ``str(message)`` is the English text the API returns.
"""

from __future__ import annotations

from dataclasses import dataclass


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


def message(template: str, **params: object) -> Message:
    return Message(template, tuple(params.items()))
