from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _ensure_roles(sender, using="default", **kwargs):
    from django.apps import apps
    from django.contrib.auth.management import create_permissions

    from portal.services import ROLE_PERMISSIONS, role_groups_ensure

    # The roles' permissions may belong to apps whose post_migrate comes after ours: those apps'
    # are made first (only those: this runs after every test that commits, too).
    labels = {perm.split(".")[0] for perms in ROLE_PERMISSIONS.values() for perm in perms}
    for label in sorted(labels):
        create_permissions(apps.get_app_config(label), verbosity=0, using=using)
    role_groups_ensure()


class PortalConfig(AppConfig):
    name = "portal"
    verbose_name = _("Portal")

    def ready(self):
        # Permissions exist only after migrate, so the role groups are (re)made then.
        post_migrate.connect(_ensure_roles, sender=self, dispatch_uid="portal.ensure_roles")
        from django.contrib.auth.signals import user_login_failed

        from portal import tasks  # noqa: F401 - registers the app's jobs (portal.queueing.enqueue)
        from portal.signin import signin_failed

        # After axes' receiver (axes is ready first): it tells a refused attempt from a failed one.
        user_login_failed.connect(signin_failed, dispatch_uid="portal.signin_failed")
