from django.core.management.base import BaseCommand, CommandError

from integrations.models import TokenScope
from integrations.services import api_token_issue
from portal.models import User


class Command(BaseCommand):
    help = "Issue an API token acting as USERNAME; the token is printed once and never stored."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--scope", choices=TokenScope.values, required=True)
        parser.add_argument("--name", default="", help="What the token is for, e.g. the CRM.")

    def handle(self, *args, username, scope, name, **options):
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {username}.")
        token, raw = api_token_issue(user=user, scope=scope, name=name or f"{username} {scope}")
        self.stderr.write(
            f"Token {token.prefix}… ({scope}) for {username}; store it now, "
            "it cannot be shown again."
        )
        self.stdout.write(raw)
