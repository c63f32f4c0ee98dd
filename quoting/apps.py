from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuotingConfig(AppConfig):
    name = "quoting"
    verbose_name = _("Quoting")
