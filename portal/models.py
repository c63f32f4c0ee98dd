from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

from quoting.engine.written import CHINESE, ENGLISH, WrittenIn, written_in

# Staff roles are Django groups, so admins manage them without code.
SALES = "sales"
SALES_MANAGER = "sales-manager"
CATALOG_MANAGER = "catalog-manager"
# Decides approvals beyond a sales manager's rule (quoting.quotes.models.ApprovalRule).
DIRECTOR = "director"
# Edits the seller's company profile (portal page /settings/company/). Appended: a role's bit
# is its place in ROLE_GROUPS.
COMPANY_ADMIN = "company-admin"
ROLE_GROUPS = (SALES, SALES_MANAGER, CATALOG_MANAGER, DIRECTOR, COMPANY_ADMIN)


# One more bit after the roles: the user holds `quoting.view_margin` (the reseller's cost and
# margin), directly or through a group; read with the roles, so asking costs no query.
MARGIN_BIT = 1 << len(ROLE_GROUPS)
MARGIN_PERMISSION = ("quoting", "view_margin")


def role_annotations() -> dict:
    """The user's staff roles as one number (bit n: ROLE_GROUPS[n]; MARGIN_BIT: may see
    margins), for a query that loads users (as itself or with select_related("user")):
    roles_from_row() reads it, so a request's user costs no second query for its groups.

    Raw SQL on purpose: the same subquery built with Exists() costs more to compile (about
    1.6 ms a request) than the query it saves; this one compiles in a tenth of that.
    """
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection
    from django.db.models.expressions import RawSQL

    quote = connection.ops.quote_name
    through = User.groups.through._meta
    direct = User.user_permissions.through._meta
    granted = Group.permissions.through._meta
    user_id = f"{quote(User._meta.db_table)}.{quote('id')}"
    cases = " ".join(f"WHEN %s THEN {1 << n}" for n in range(len(ROLE_GROUPS)))
    # The permission's row, by app label and codename (parameters).
    permission = (
        f"SELECT p.{quote('id')} FROM {quote(Permission._meta.db_table)} p"  # noqa: S608
        f" JOIN {quote(ContentType._meta.db_table)} ct"
        f" ON ct.{quote('id')} = p.{quote('content_type_id')}"
        f" WHERE ct.{quote('app_label')} = %s AND p.{quote('codename')} = %s"
    )
    # Only identifiers from the models' metadata are formatted in; names are parameters.
    sql = (
        f"((SELECT COALESCE(SUM(CASE g.{quote('name')} {cases} ELSE 0 END), 0)"  # noqa: S608
        f" FROM {quote(through.db_table)} ug JOIN {quote(Group._meta.db_table)} g"
        f" ON g.{quote('id')} = ug.{quote(through.get_field('group').column)}"
        f" WHERE ug.{quote(through.get_field('user').column)} = {user_id})"
        f" + CASE WHEN EXISTS (SELECT 1 FROM {quote(direct.db_table)} up"
        f" WHERE up.{quote(direct.get_field('user').column)} = {user_id}"
        f" AND up.{quote(direct.get_field('permission').column)} IN ({permission}))"
        f" OR EXISTS (SELECT 1 FROM {quote(through.db_table)} ug2"
        f" JOIN {quote(granted.db_table)} gp"
        f" ON gp.{quote(granted.get_field('group').column)}"
        f" = ug2.{quote(through.get_field('group').column)}"
        f" WHERE ug2.{quote(through.get_field('user').column)} = {user_id}"
        f" AND gp.{quote(granted.get_field('permission').column)} IN ({permission}))"
        f" THEN {MARGIN_BIT} ELSE 0 END)"
    )
    return {"_roles": RawSQL(sql, (*ROLE_GROUPS, *MARGIN_PERMISSION, *MARGIN_PERMISSION))}  # noqa: S611


def roles_from_row(user: "User", row) -> None:
    """Set the roles role_annotations() read on `row` (the user or a row holding it)."""
    mask = row._roles
    user._role_names = frozenset(n for i, n in enumerate(ROLE_GROUPS) if mask & (1 << i))
    user._may_view_margin = bool(mask & MARGIN_BIT)


class User(AbstractUser):
    """A staff member. Customers never sign in: they use share links."""

    language = models.CharField(
        _("language"),
        max_length=10,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("The portal's language for this user; empty follows the browser."),
    )
    phone = models.CharField(
        _("phone"),
        max_length=40,
        blank=True,
        help_text=_("Printed on the proposals this user owns, with their name and e-mail."),
    )
    job_title = models.CharField(
        _("job title"),
        max_length=100,
        blank=True,
        help_text=_("Printed under your name when you countersign an accepted offer."),
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

    def may_view_margin(self) -> bool:
        """Holds `quoting.view_margin` (directly or through a group): read with the roles when
        the query that loaded the user read them (role_annotations), else asked."""
        if self.is_superuser:
            return True
        known = self.__dict__.get("_may_view_margin")
        return known if known is not None else self.has_perm("quoting.view_margin")


LOGO_MAX_BYTES = 512 * 1024
LOGO_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}


# The company chop (seal) is printed over the seller's signature line of a countersigned copy:
# a scan, usually a transparent PNG, small enough to sit in the row like the logo.
CHOP_MAX_BYTES = 512 * 1024


def logo_content_type(data: bytes) -> str | None:
    """PNG or JPEG by its first bytes; None for anything else (SVG could call out of the PDF)."""
    return next((kind for magic, kind in LOGO_TYPES.items() if data.startswith(magic)), None)


class CompanyProfile(models.Model):
    """The seller, as proposals and the customer's page name it: one row, edited in the admin.

    The logo and the chop are kept in the row, not in media storage, so a worker on another
    machine prints them.
    """

    SINGLETON_PK = 1

    legal_name_en = models.CharField(_("legal name (English)"), max_length=200)
    legal_name_zh = models.CharField(_("legal name (Chinese)"), max_length=200, blank=True)
    address_en = models.TextField(_("address (English)"), max_length=500, blank=True)
    address_zh = models.TextField(_("address (Chinese)"), max_length=500, blank=True)
    phone = models.CharField(_("phone"), max_length=40, blank=True)
    email = models.EmailField(_("e-mail"), blank=True)
    website = models.CharField(_("website"), max_length=200, blank=True)
    tax_number = models.CharField(
        _("tax number"),
        max_length=40,
        blank=True,
        help_text=_("Unified social credit code (统一社会信用代码) or VAT number."),
    )
    bank_name = models.CharField(_("bank (English)"), max_length=200, blank=True)
    bank_name_zh = models.CharField(_("bank (Chinese)"), max_length=200, blank=True)
    bank_account = models.CharField(_("bank account"), max_length=60, blank=True)
    # Where a support tier's on-site time applies (Product.onsite_hours), printed beside it.
    service_area_en = models.CharField(
        _("service area (English)"),
        max_length=100,
        blank=True,
        help_text=_("Where on-site support times apply, e.g. Shenzhen."),
    )
    service_area_zh = models.CharField(_("service area (Chinese)"), max_length=100, blank=True)
    # The payment schedule a new quote starts with ([{"label", "percent"}], quoting's rules).
    payment_schedule = models.JSONField(_("default payment schedule"), default=list, blank=True)
    logo = models.BinaryField(_("logo"), blank=True, null=True, editable=False)
    logo_type = models.CharField(max_length=20, blank=True, editable=False)
    # The company seal (公章 / 合同专用章), stamped on the seller's side of a countersigned copy.
    chop = models.BinaryField(_("company chop"), blank=True, null=True, editable=False)
    chop_type = models.CharField(max_length=20, blank=True, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("company profile")
        verbose_name_plural = _("company profile")

    def __str__(self) -> str:
        return self.legal_name_en

    def save(self, *args, **kwargs):
        self.pk = self.SINGLETON_PK  # one seller: a second save edits the same row
        super().save(*args, **kwargs)

    # In `language`, else in English, with the language it is written in (a page in the other
    # language marks it: quoting.engine.written).
    def legal_name_for(self, language: str) -> WrittenIn:
        return _in(language, self.legal_name_zh, self.legal_name_en)

    def address_for(self, language: str) -> WrittenIn:
        return _in(language, self.address_zh, self.address_en)

    def bank_name_for(self, language: str) -> WrittenIn:
        return _in(language, self.bank_name_zh, self.bank_name)

    def service_area_for(self, language: str) -> WrittenIn:
        return _in(language, self.service_area_zh, self.service_area_en)


def _in(language: str, chinese: str, english: str) -> WrittenIn:
    if language.startswith("zh") and chinese:
        return written_in(chinese, CHINESE)
    return written_in(english, ENGLISH)
