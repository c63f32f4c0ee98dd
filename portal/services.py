"""Roles and the demo sign-ins."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Q

from portal.models import (
    CATALOG_MANAGER,
    COMPANY_ADMIN,
    DIRECTOR,
    SALES,
    SALES_MANAGER,
    CompanyProfile,
    User,
)

# Model permissions per role, as "app_label.codename". Row-level scoping lives in selectors.
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    SALES: ("catalog.view_product", "catalog.view_pricelist", "catalog.view_pricelistitem"),
    SALES_MANAGER: (
        "catalog.view_product",
        "catalog.view_pricelist",
        "catalog.view_pricelistitem",
        "quoting.view_margin",
    ),
    DIRECTOR: (
        "catalog.view_product",
        "catalog.view_pricelist",
        "catalog.view_pricelistitem",
        "quoting.view_margin",
    ),
    CATALOG_MANAGER: tuple(
        f"catalog.{action}_{model}"
        for model in ("product", "pricelist", "pricelistitem")
        for action in ("add", "change", "delete", "view")
    )
    + ("quoting.view_margin",),
    # The company profile's page (portal.views.company_profile_edit) asks for the role itself;
    # the permissions let a company admin with admin access edit it there too.
    COMPANY_ADMIN: ("portal.view_companyprofile", "portal.change_companyprofile"),
}

# Who may edit the seller's company profile on its portal page: company admins, and catalog
# managers, who keep the prices and already kept the profile in the admin.
COMPANY_PROFILE_EDITORS = (COMPANY_ADMIN, CATALOG_MANAGER)


def may_edit_company(user) -> bool:
    """Whether `user` may edit the company profile: its page, the home page's card and the
    navigation's link ask the same question."""
    return user.is_authenticated and any(user.has_role(r) for r in COMPANY_PROFILE_EDITORS)


DEMO_USERS = (
    # username, role, staff (admin access), first name, phone
    ("sales", SALES, False, "Demo Sales", "+86 755 8600 0101"),
    ("manager", SALES_MANAGER, False, "Demo Manager", "+86 755 8600 0102"),
    ("catalog", CATALOG_MANAGER, True, "Demo Catalog", ""),
    ("director", DIRECTOR, False, "Demo Director", "+86 755 8600 0103"),
    ("company", COMPANY_ADMIN, False, "Demo Company Admin", ""),
)

# A made-up seller (the .invalid domain, a code of the right shape): replace it in the admin.
DEMO_COMPANY = {
    "legal_name_en": "Shenzhen FabricQuote Networks Co., Ltd. (demo)",
    "legal_name_zh": "深圳法布报价网络有限公司（演示）",
    "address_en": "Floor 18, Tower A, 9 Keji South Road, Nanshan District, Shenzhen 518057, China",
    "address_zh": "中国广东省深圳市南山区科技南路9号A座18层 518057",
    "phone": "+86 755 8600 0100",
    "email": "sales@fabricquote.invalid",
    "tax_number": "91440300MA5DEMO00X",
    "bank_name": "China Merchants Bank, Shenzhen Nanshan Branch",
    "bank_name_zh": "招商银行深圳南山支行",
    "bank_account": "7559 0000 0000 0000",
    "service_area_en": "Shenzhen",
    "service_area_zh": "深圳",
    "payment_schedule": [
        {"label": "On order", "percent": "30.00"},
        {"label": "On delivery", "percent": "60.00"},
        {"label": "On acceptance", "percent": "10.00"},
    ],
}


def role_groups_ensure() -> None:
    """Create the role groups with their permissions; safe to run after every migrate.

    The permissions are read in one query, not one per permission: this runs after every
    migrate and after every flush (each test that commits, tests/postgresql_delete_flush)."""
    keys = {_key(perm) for perms in ROLE_PERMISSIONS.values() for perm in perms}
    anyone = Q(pk__in=[])
    for app_label, codename in keys:
        anyone |= Q(content_type__app_label=app_label, codename=codename)
    found = {
        (permission.content_type.app_label, permission.codename): permission
        for permission in Permission.objects.filter(anyone).select_related("content_type")
    }
    for group_name, perms in ROLE_PERMISSIONS.items():
        group, _created = Group.objects.get_or_create(name=group_name)
        group.permissions.add(*(found[key] for key in map(_key, perms) if key in found))


def _key(perm: str) -> tuple[str, str]:
    app_label, codename = perm.split(".")
    return app_label, codename


@transaction.atomic
def demo_users_ensure() -> list[tuple[str, str, bool]]:
    """The demo sign-ins; existing users are left as they are. Returns (username, role, new)."""
    role_groups_ensure()
    made = []
    for username, role, staff, first_name, phone in DEMO_USERS:
        user, created = User.objects.get_or_create(
            username=username,
            defaults={
                "is_staff": staff,
                "first_name": first_name,
                "phone": phone,
                "email": f"{username}@demo.invalid",
            },
        )
        if created:
            user.set_password(settings.DEMO_PASSWORD)
            user.save(update_fields=["password"])
            user.groups.add(Group.objects.get(name=role))
        made.append((username, role, created))
    return made


def demo_company_profile_ensure() -> bool:
    """The demo seller, unless a company profile is set already; True when it was created."""
    _profile, created = CompanyProfile.objects.get_or_create(
        pk=CompanyProfile.SINGLETON_PK, defaults=DEMO_COMPANY
    )
    return created
