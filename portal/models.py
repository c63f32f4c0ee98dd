from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

# Staff roles are Django groups, so admins manage them without code.
SALES = "sales"
SALES_MANAGER = "sales-manager"
CATALOG_MANAGER = "catalog-manager"
ROLE_GROUPS = (SALES, SALES_MANAGER, CATALOG_MANAGER)


class User(AbstractUser):
    """A staff member. Customers never sign in: they use share links."""

    language = models.CharField(
        _("language"),
        max_length=10,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("The portal's language for this user; empty follows the browser."),
    )

    def has_role(self, group_name: str) -> bool:
        return self.is_superuser or self.groups.filter(name=group_name).exists()
