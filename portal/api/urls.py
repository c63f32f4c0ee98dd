"""Every REST resource under /api/v1/, one router."""

from django.urls import path
from rest_framework.routers import DefaultRouter

from catalog.api import ProductViewSet
from integrations.api import EventViewSet, WebhookEndpointViewSet
from portal.api.users import MeViewSet, UserViewSet
from proposals.api import ProposalDocumentViewSet, QuoteProposalViewSet
from quoting.customers.api import ContactViewSet, CustomerViewSet
from quoting.designs.api.designs import DesignViewSet
from quoting.designs.api.packs import DesignInstallPackViewSet
from quoting.designs.api.projects import ProjectViewSet
from quoting.designs.api.tco import TcoViewSet
from quoting.quotes.api import ApprovalViewSet, QuoteViewSet
from quoting.quotes.api_as_built import QuoteAsBuiltViewSet
from quoting.quotes.api_renewals import QuoteRenewalViewSet, RenewalViewSet

router = DefaultRouter()
router.register("products", ProductViewSet, basename="product")
router.register("designs", DesignViewSet, basename="design")
router.register("install-packs", DesignInstallPackViewSet, basename="install-pack")
router.register("tco", TcoViewSet, basename="tco")
router.register("customers", CustomerViewSet, basename="customer")
router.register("contacts", ContactViewSet, basename="contact")
router.register("projects", ProjectViewSet, basename="project")
router.register("quotes", QuoteViewSet, basename="quote")
router.register("quotes", QuoteProposalViewSet, basename="quote-proposal")
router.register("quotes", QuoteRenewalViewSet, basename="quote-renewal")
router.register("quotes", QuoteAsBuiltViewSet, basename="quote-as-built")
router.register("proposals", ProposalDocumentViewSet, basename="proposal")
router.register("approvals", ApprovalViewSet, basename="approval")
router.register("renewals", RenewalViewSet, basename="renewal")
router.register("webhook-endpoints", WebhookEndpointViewSet, basename="webhook-endpoint")
router.register("events", EventViewSet, basename="event")
router.register("users", UserViewSet, basename="user")

urlpatterns = [
    path("me/", MeViewSet.as_view({"get": "retrieve"}, detail=True), name="me"),
    *router.urls,
]
