from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from portal.services import demo_users_ensure


class Command(BaseCommand):
    help = "Create the demo sign-ins (sales, manager, catalog). Idempotent; refuses in production."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError("Demo users are for development only (DEBUG is off).")
        for username, role, created in demo_users_ensure():
            state = "created" if created else "already there"
            self.stdout.write(f"  {username:<8} {role:<16} {state}")
        self.stdout.write(f"Sign in at http://127.0.0.1:8000/ as 'sales' with password "
                          f"'{settings.DEMO_PASSWORD}' (also 'manager' and 'catalog').")
