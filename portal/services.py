"""Roles and the demo sign-ins."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.db import transaction

from .models import CATALOG_MANAGER, SALES, SALES_MANAGER, User

# Model permissions per role, as "app_label.codename". Row-level scoping lives in selectors.
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    SALES: ("catalog.view_product", "catalog.view_pricelist", "catalog.view_pricelistitem"),
    SALES_MANAGER: ("catalog.view_product", "catalog.view_pricelist",
                    "catalog.view_pricelistitem"),
    CATALOG_MANAGER: tuple(
        f"catalog.{action}_{model}"
        for model in ("product", "pricelist", "pricelistitem")
        for action in ("add", "change", "delete", "view")
    ),
}

DEMO_USERS = (
    # username, role, staff (admin access), first name
    ("sales", SALES, False, "Demo Sales"),
    ("manager", SALES_MANAGER, False, "Demo Manager"),
    ("catalog", CATALOG_MANAGER, True, "Demo Catalog"),
)


def role_groups_ensure() -> None:
    """Create the role groups with their permissions; safe to run after every migrate."""
    for group_name, perms in ROLE_PERMISSIONS.items():
        group, _created = Group.objects.get_or_create(name=group_name)
        wanted = []
        for perm in perms:
            app_label, codename = perm.split(".")
            wanted += Permission.objects.filter(content_type__app_label=app_label,
                                                codename=codename)
        group.permissions.add(*wanted)


@transaction.atomic
def demo_users_ensure() -> list[tuple[str, str, bool]]:
    """The demo sign-ins; existing users are left as they are. Returns (username, role, new)."""
    role_groups_ensure()
    made = []
    for username, role, staff, first_name in DEMO_USERS:
        user, created = User.objects.get_or_create(
            username=username,
            defaults={"is_staff": staff, "first_name": first_name,
                      "email": f"{username}@demo.invalid"},
        )
        if created:
            user.set_password(settings.DEMO_PASSWORD)
            user.save(update_fields=["password"])
            user.groups.add(Group.objects.get(name=role))
        made.append((username, role, created))
    return made
