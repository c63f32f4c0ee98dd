"""Every REST resource under /api/v1/, one router."""

from rest_framework.routers import DefaultRouter

from catalog.api import ProductViewSet
from quoting.api.designs import DesignViewSet
from quoting.api.tco import TcoViewSet

router = DefaultRouter()
router.register("products", ProductViewSet, basename="product")
router.register("designs", DesignViewSet, basename="design")
router.register("tco", TcoViewSet, basename="tco")

urlpatterns = router.urls
