"""Where an answer form's faults are shown (#27 item 3): at their field, not above the form.

A form sent back with a fault must land the reader at it: every message sits under its field,
the field is marked (aria-invalid, its message named by aria-describedby) and the first one in
page order takes the focus when the page loads (autofocus: no script needed), so a fault found
by the service (a unified social credit code that fails its check character) reads like one
the form found (a missing name). A fault no field owns (a replaced revision) stays one message
above the button, and takes the focus itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The answer forms' inputs in the order the page shows them: the first fault in this order is
# the one focused. "signature" is the signature box (typed or drawn), as the services name it.
PAGE_ORDER = (
    "name",
    "title",
    "company",
    "signature",
    "po_number",
    "invoice_company",
    "invoice_tax_id",
    "invoice_address_phone",
    "invoice_bank_account",
    "remarks",
    "agreed",
    "signer_code",
)


# The signature box's inputs: their faults are the box's (one message, the typed input marked).
INVOICE_FIELDS = (
    "invoice_company",
    "invoice_tax_id",
    "invoice_address_phone",
    "invoice_bank_account",
)
# On the page only when it applies: the signing code's field, on a link that asks for a code.
OPTIONAL_FIELDS = ("signer_code",)
# The customer's choice: its faults are shown in the choice block, above the form.
CHOICE_FIELDS = ("alternative", "optional")
ALIASES = {
    "signature_text": "signature",
    "signature_data": "signature",
    "signature_kind": "signature",
}


@dataclass(frozen=True)
class Faults:
    messages: dict[str, str] = field(default_factory=dict)  # field -> its message(s)
    general: str = ""  # the fault no field on the page owns

    @property
    def first(self) -> str:
        """The field focused: the first at fault in page order; "" when none is."""
        return next((name for name in PAGE_ORDER if name in self.messages), "")


def faults_of(
    form,
    *,
    error: str = "",
    error_field: str | None = None,
    not_shown: tuple[str, ...] = (),
    also_shown: tuple[str, ...] = (),
) -> Faults:
    """A sent-back form's faults: the form's own per field, and the service's `error` at
    `error_field` when the page has that field, else as the general message. `not_shown`:
    fields this page leaves out (the fapiao details on an English page for a foreign customer):
    their faults are general, so none is lost. `also_shown`: fields only some pages have (the
    signing code's, on a link that asks for one)."""
    if form is None:
        return Faults(general=error)
    on_page = tuple(
        name
        for name in PAGE_ORDER
        if name not in not_shown and (name not in OPTIONAL_FIELDS or name in also_shown)
    )
    messages: dict[str, str] = {}
    general = ""
    for name, errors in form.errors.items():
        text = " ".join(str(e) for e in errors)
        name = ALIASES.get(name, name)
        if name in CHOICE_FIELDS:
            continue
        if name in on_page:
            messages[name] = " ".join(filter(None, [messages.get(name), text]))
        else:
            general = " ".join(filter(None, [general, text]))
    error_field = ALIASES.get(error_field or "", error_field)
    if error and error_field in on_page:
        messages[error_field] = " ".join(filter(None, [messages.get(error_field), error]))
    elif error:
        general = " ".join(filter(None, [general, error]))
    return Faults(messages=messages, general=general)
