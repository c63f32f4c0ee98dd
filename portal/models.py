from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

# Staff roles are Django groups, so admins manage them without code.
SALES = "sales"
SALES_MANAGER = "sales-manager"
CATALOG_MANAGER = "catalog-manager"
ROLE_GROUPS = (SALES, SALES_MANAGER, CATALOG_MANAGER)


def role_annotations(prefix: str = "") -> dict:
    """EXISTS per staff role, for a query that loads users: `roles_from_row()` turns them into
    the user's role set, so a request's user costs no second query for its groups."""
    from django.db.models import Exists, OuterRef

    memberships = User.groups.through.objects.filter(user=OuterRef(f"{prefix}pk"))
    return {
        f"_role_{n}": Exists(memberships.filter(group__name=name))
        for n, name in enumerate(ROLE_GROUPS)
    }


def roles_from_row(user: "User", row) -> None:
    """Set the role names read by role_annotations() on `row` (the user or a row holding it)."""
    user._role_names = frozenset(
        name for n, name in enumerate(ROLE_GROUPS) if getattr(row, f"_role_{n}")
    )


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
        # One query per user object (a request's user), however many rules ask on one page,
        # and none when the query that loaded the user read its roles (role_annotations). A
        # group outside the staff roles (a deployment's own, named in a setting) is looked up.
        names = self.__dict__.get("_role_names")
        partial = group_name not in ROLE_GROUPS and not self.__dict__.get("_all_groups")
        if names is None or partial:
            names = self._role_names = frozenset(self.groups.values_list("name", flat=True))
            self._all_groups = True
        return group_name in names
