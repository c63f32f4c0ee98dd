from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from portal.services import demo_company_profile_ensure, demo_users_ensure
from quoting.quotes.services.demo import demo_data_ensure


class Command(BaseCommand):
    help = (
        "Create the demo sign-ins (sales, manager, catalog) and a small demo data set: two "
        "customers with a project, a saved design and a draft quote. Needs the catalog "
        "(load_catalog). Idempotent; refuses in production."
    )

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError("Demo users are for development only (DEBUG is off).")
        for username, role, created in demo_users_ensure():
            state = "created" if created else "already there"
            self.stdout.write(f"  {username:<8} {role:<16} {state}")
        if demo_company_profile_ensure():
            self.stdout.write("  demo company profile created (edit it in the admin)")
        try:
            made = demo_data_ensure()
        except RuntimeError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(
            "Demo data: "
            + (", ".join(f"{n} {k} created" for k, n in made.items() if n) or "already there")
            + "."
        )
        self.stdout.write(
            f"Sign in at http://127.0.0.1:8000/ as 'sales' with password "
            f"'{settings.DEMO_PASSWORD}' (also 'manager' and 'catalog')."
        )
