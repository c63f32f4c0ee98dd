from django.conf import settings
from django.conf.urls.static import static
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from portal import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/language/", views.language_set, name="language-set"),
    path("settings/company/", views.company_profile_edit, name="company-profile"),
    path("catalog/", include("catalog.urls")),
    # Before the pages: every API call would first be tried against each of their patterns.
    path("api/v1/", include("portal.api.urls")),
    path("", include("proposals.urls")),  # before quoting: its quotes/<pk>/<action>/ is a catch-all
    path("", include("quoting.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("admin/", admin.site.urls),
]

handler403 = "portal.views.permission_denied"  # JSON under /api/, a translated page elsewhere
handler404 = "portal.views.not_found"  # JSON under /api/
handler500 = "portal.views.server_error"  # the database out of reach: 503, see the view

if settings.DEBUG:
    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
