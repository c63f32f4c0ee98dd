"""GET /api/v1/me/ (who the token or session is) and GET /api/v1/users/ (the users you work with).

A quote, customer or project names its owner by username; these give the ids that the lists'
`owner=` filters take (they take a username too).
"""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.filters import OrderingFilter
from rest_framework.response import Response

from integrations.models import ApiToken, TokenScope
from portal.api.base import (
    LIST_ERRORS,
    READ_ERRORS,
    ApiViewSetMixin,
    AskedFilterBackend,
    errors,
)
from portal.models import DIRECTOR, ROLE_GROUPS, User
from quoting.customers.models import Team
from quoting.customers.selectors import sees_every_team


def users_visible_to(*, user: User) -> QuerySet[User]:
    """Active users who share a team with `user` (and `user`); managers and directors: all."""
    users = User.objects.filter(is_active=True)
    if sees_every_team(user) or user.has_role(DIRECTOR):
        return users
    teams = Team.objects.filter(members=user).values("pk")
    mates = User.objects.filter(teams__in=teams).values("pk")
    return users.filter(pk__in=mates) | users.filter(pk=user.pk)


# Read-only answers: plain text, not the model fields' input rules (a username pattern, an
# e-mail format an old account may not meet).
class UserSerializer(serializers.ModelSerializer):
    username = serializers.CharField(read_only=True)
    name = serializers.SerializerMethodField(help_text="Full name; the username when empty.")
    active = serializers.BooleanField(source="is_active", read_only=True)

    class Meta:
        model = User
        fields = ["id", "username", "name", "active"]
        read_only_fields = fields

    def get_name(self, user: User) -> str:
        return user.get_full_name() or user.username


class TeamSerializer(serializers.ModelSerializer):
    class Meta:
        model = Team
        fields = ["id", "name"]


class MeSerializer(UserSerializer):
    email = serializers.CharField(read_only=True)
    roles = serializers.SerializerMethodField(help_text="The staff roles (groups) you hold.")
    superuser = serializers.BooleanField(source="is_superuser", read_only=True)
    teams = TeamSerializer(many=True, read_only=True)
    may_view_margin = serializers.SerializerMethodField(
        help_text="Whether quotes show you cost and margin."
    )
    token_scope = serializers.SerializerMethodField(
        help_text="The API token's scope when called with a token; null for a browser session."
    )

    class Meta:
        model = User
        fields = [
            "id",
            "username",
            "name",
            "email",
            "active",
            "roles",
            "superuser",
            "teams",
            "may_view_margin",
            "token_scope",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.ListField(child=serializers.ChoiceField(ROLE_GROUPS)))
    def get_roles(self, user: User) -> list[str]:
        names = set(user.groups.values_list("name", flat=True))
        return [role for role in ROLE_GROUPS if role in names]

    def get_may_view_margin(self, user: User) -> bool:
        return user.is_active and user.may_view_margin()

    @extend_schema_field(serializers.ChoiceField(TokenScope.choices, allow_null=True))
    def get_token_scope(self, user: User) -> str | None:
        auth = self.context["request"].auth
        return auth.scope if isinstance(auth, ApiToken) else None


@extend_schema_view(
    retrieve=extend_schema(
        summary="Who you are",
        description="The user behind the token (or the browser session): id, roles, teams, "
        "whether you see margins, and the token's scope.",
        responses={200: MeSerializer, **errors(401, 403)},
    )
)
class MeViewSet(ApiViewSetMixin, viewsets.GenericViewSet):
    serializer_class = MeSerializer
    filter_backends: list = []

    def retrieve(self, request, *args, **kwargs):
        return Response(self.get_serializer(request.user).data)


@extend_schema_view(
    list=extend_schema(
        summary="List the users you work with",
        description="Active users who share a team with you (and you); sales managers and "
        "directors see every active user. Filter by `username=`; the ids are those the lists' "
        "`owner=` filters take.",
        responses={200: UserSerializer(many=True), **errors(*LIST_ERRORS)},
    ),
    retrieve=extend_schema(
        summary="One user you work with",
        responses={200: UserSerializer, **errors(*READ_ERRORS)},
    ),
)
class UserViewSet(
    ApiViewSetMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    queryset = User.objects.none()  # the model, for the schema; get_queryset scopes
    serializer_class = UserSerializer
    # No updated_since: a user has no time of change.
    filter_backends = [AskedFilterBackend, OrderingFilter]
    filterset_fields = ["username"]
    ordering_fields = ["username", "id"]
    ordering = ["username"]
    lookup_value_regex = "[0-9]{1,18}"

    def allowed_query_params(self) -> set[str]:
        return super().allowed_query_params() - {"updated_since"}

    def get_queryset(self):
        return users_visible_to(user=self.request.user).order_by("username")
