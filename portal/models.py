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
        if self.is_superuser:
            return True
        # One query per user object (a request's user), however many rules ask on one page.
        names = self.__dict__.get("_role_names")
        if names is None:
            names = self._role_names = frozenset(self.groups.values_list("name", flat=True))
        return group_name in names
