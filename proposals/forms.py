from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from proposals.models import SignatureKind


class GenerateForm(forms.Form):
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES, required=False)


class ShareLinkForm(forms.Form):
    recipient_name = forms.CharField(label=_("Recipient"), max_length=100, required=False)
    recipient_email = forms.EmailField(label=_("E-mail"), required=False)
    days = forms.IntegerField(label=_("Valid for (days)"), min_value=1, max_value=365, initial=30)
    # The e-mail the portal sends with the link (lengths and the language checked by
    # share_link_create: the rules live there; these only bound what a POST may carry).
    send_email = forms.BooleanField(
        label=_("Send the link by e-mail"),
        required=False,
        initial=True,
        help_text=_("When an e-mail address is given. The reply goes to you."),
    )
    language = forms.ChoiceField(
        label=_("Language of the e-mail"), choices=settings.LANGUAGES, required=False
    )
    message = forms.CharField(
        label=_("Message"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class ChosenKeysField(forms.Field):
    """The optional lines the customer ticked (their keys, any number of `optional=` values).
    Only their shape is checked here; offer_choice says whether the offer has them."""

    widget = forms.MultipleHiddenInput
    MAX_KEYS = 500  # a revision's line limit

    def to_python(self, value) -> list[str]:
        if isinstance(value, str):
            value = [value]
        keys = [str(key) for key in (value or [])]
        if len(keys) > self.MAX_KEYS or any(len(key) > 36 for key in keys):
            raise forms.ValidationError(
                _("This offer has no such optional item: choose among the optional items listed.")
            )
        return keys


class ChoiceForm(forms.Form):
    """The customer's choice (#15 item 2): an alternative ("" = as quoted) and optional items.
    Asked alone by the price endpoint, and part of the accept form (works without script)."""

    alternative = forms.CharField(max_length=100, required=False, strip=False)
    optional = ChosenKeysField(required=False)


class AcceptForm(ChoiceForm):
    revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=32767)
    name = forms.CharField(label=_("Your name"), max_length=100)
    title = forms.CharField(label=_("Your title"), max_length=100, required=False)
    agreed = forms.BooleanField(
        label=_("I accept this offer and its terms on behalf of my organisation.")
    )
    # --- #15 items 1 and 3: the signature and the purchase details. Lengths and formats are
    # checked by share_accept (the rules live there); these only bound what a POST may carry.
    company = forms.CharField(max_length=1000, required=False)
    signature_kind = forms.ChoiceField(choices=SignatureKind.choices, required=False)
    signature_text = forms.CharField(max_length=1000, required=False)
    signature_data = forms.CharField(required=False, strip=True)  # a data: URL of a PNG
    signer_timezone = forms.CharField(max_length=200, required=False)
    po_number = forms.CharField(max_length=1000, required=False)
    invoice_company = forms.CharField(max_length=1000, required=False)
    invoice_tax_id = forms.CharField(max_length=1000, required=False)
    invoice_address_phone = forms.CharField(max_length=1000, required=False)
    invoice_bank_account = forms.CharField(max_length=1000, required=False)
    # The one-time code e-mailed to the link's recipient (checked by share_accept).
    signer_code = forms.CharField(max_length=20, required=False)

    SIGNED_FIELDS = (
        "company",
        "signature_kind",
        "signature_text",
        "signature_data",
        "signer_timezone",
        "po_number",
        "invoice_company",
        "invoice_tax_id",
        "invoice_address_phone",
        "invoice_bank_account",
    )


class DeclineForm(forms.Form):
    revision = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=32767)
    reason = forms.CharField(
        label=_("Why not? (optional)"), max_length=2000, required=False, widget=forms.Textarea
    )
    # Set by the confirmation step: a first tap on "Decline" only asks.
    confirmed = forms.BooleanField(required=False, widget=forms.HiddenInput)


class AsBuiltSignForm(forms.Form):
    """The customer's sign-off of an as-built report (lengths and formats checked by
    as_built_sign: the rules live there; these only bound what a POST may carry)."""

    sign_off = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    name = forms.CharField(label=_("Your name"), max_length=100)
    title = forms.CharField(label=_("Your title"), max_length=100, required=False)
    company = forms.CharField(max_length=1000, required=False)
    remarks = forms.CharField(max_length=4000, required=False, widget=forms.Textarea)
    agreed = forms.BooleanField(
        label=_(
            "I accept the installed fabric as this report shows it, on behalf of my organisation."
        )
    )
    signature_kind = forms.ChoiceField(choices=SignatureKind.choices, required=False)
    signature_text = forms.CharField(max_length=1000, required=False)
    signature_data = forms.CharField(required=False, strip=True)
    signer_timezone = forms.CharField(max_length=200, required=False)
