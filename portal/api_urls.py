"""Every REST resource under /api/v1/, one router."""

from rest_framework.routers import DefaultRouter

from catalog.api import ProductViewSet

router = DefaultRouter()
router.register("products", ProductViewSet, basename="product")

urlpatterns = router.urls
