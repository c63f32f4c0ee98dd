"""Which teams a user may file customers under: the one place the pages, the API and the
customer services ask. The quote rules (send, approve, edit) are quoting.quotes.permissions.
"""

from __future__ import annotations

from django.db.models import QuerySet

from portal.models import User
from quoting.customers.models import Team
from quoting.customers.selectors import sees_every_team
from quoting.errors import InvalidValue

# --- customers: the teams a user may file one under ----------------------------------------------


def teams_for_filing(*, user: User) -> QuerySet[Team]:
    """The teams `user` may file a customer under: every team for sales managers and
    superusers (who see every customer), else the user's own teams."""
    if not user.is_authenticated or not user.is_active:
        return Team.objects.none()
    teams = Team.objects.all() if sees_every_team(user) else user.teams.all()
    return teams.order_by("name")


def team_for_filing(*, user: User, team: Team | None) -> Team:
    """The team a customer goes under: `team` when `user` may file under it; left out, the
    user's only team. Raises InvalidValue on `team` otherwise."""
    allowed = teams_for_filing(user=user)
    if team is not None:
        if not allowed.filter(pk=team.pk).exists():
            raise InvalidValue("You may file customers only under your own teams.", field="team")
        return team
    only = list(allowed[:2])
    if len(only) != 1:
        raise InvalidValue("Choose the team this customer belongs to.", field="team")
    return only[0]
