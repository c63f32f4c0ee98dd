from django.urls import path

from quoting.customers import views as customer_views
from quoting.designs.views import designs, projects, tco
from quoting.quotes.views import as_built as as_built_views
from quoting.quotes.views import notifications
from quoting.quotes.views import quotes as quote_views
from quoting.quotes.views import renewals as renewal_views
from quoting.quotes.views import workbook as workbook_views

app_name = "quoting"
urlpatterns = [
    path("designs/new/", designs.design_new, name="design-new"),
    path("designs/save/", designs.design_save_view, name="design-save"),
    path("designs/tco/", designs.design_tco_panel, name="design-tco"),
    path("designs/<int:pk>/workload/", designs.design_workload, name="design-workload"),
    path(
        "designs/cable-schedule.csv",
        designs.design_cable_schedule_csv,
        name="design-cable-schedule",
    ),
    path("designs/drawing.svg", designs.design_drawing_svg, name="design-drawing"),
    path("designs/install-pack.zip", designs.design_install_pack_zip, name="design-install-pack"),
    path(
        "designs/install-packs/",
        designs.design_install_pack_build,
        name="design-install-pack-build",
    ),
    path(
        "designs/install-packs/<int:pk>/",
        designs.design_install_pack_state,
        name="design-install-pack-state",
    ),
    path(
        "designs/install-packs/<int:pk>/install-pack.zip",
        designs.design_install_pack_download,
        name="design-install-pack-download",
    ),
    path("tco/", tco.tco_page, name="tco"),
    path("customers/", customer_views.customer_list, name="customer-list"),
    path("customers/new/", customer_views.customer_new, name="customer-new"),
    path("customers/<int:pk>/", customer_views.customer_detail, name="customer-detail"),
    path("customers/<int:pk>/edit/", customer_views.customer_edit, name="customer-edit"),
    path("customers/<int:customer_pk>/projects/new/", projects.project_new, name="project-new"),
    path("projects/", projects.project_list, name="project-list"),
    path("projects/<int:pk>/", projects.project_detail, name="project-detail"),
    path("projects/<int:pk>/plan/", projects.project_plan, name="project-plan"),
    path(
        "projects/<int:pk>/designs/<int:design_pk>/quote/",
        quote_views.quote_from_design,
        name="quote-from-design",
    ),
    path("inbox/", notifications.inbox, name="inbox"),
    path("inbox/read-all/", notifications.inbox_read_all, name="inbox-read-all"),
    path("inbox/<int:pk>/read/", notifications.inbox_read, name="inbox-read"),
    path(
        "account/notifications/", notifications.notification_settings, name="notification-settings"
    ),
    path("quotes/", quote_views.quote_list, name="quote-list"),
    path("quotes/<int:pk>/", quote_views.quote_detail, name="quote-detail"),
    path("quotes/<int:pk>/diff/", quote_views.quote_diff, name="quote-diff"),
    path("quotes/<int:pk>/xlsx/", workbook_views.quote_xlsx_download, name="quote-xlsx"),
    path(
        "quotes/<int:pk>/install-pack/", quote_views.quote_install_pack, name="quote-install-pack"
    ),
    path(
        "quotes/<int:pk>/revisions/<int:number>/install-pack.zip",
        quote_views.quote_install_pack_zip,
        name="quote-install-pack-zip",
    ),
    path(
        "quotes/<int:pk>/revisions/<int:number>/as-built/",
        as_built_views.quote_as_built,
        name="quote-as-built",
    ),
    path(
        "quotes/<int:pk>/revisions/<int:number>/as-built/<int:check_id>/",
        as_built_views.quote_as_built_result,
        name="quote-as-built-result",
    ),
    path("quotes/<int:pk>/products/", quote_views.quote_product_picker, name="quote-products"),
    path("quotes/<int:pk>/lines/add/", quote_views.quote_add_product, name="quote-add-product"),
    path(
        "quotes/<int:pk>/lines/free-text/",
        quote_views.quote_add_free_text,
        name="quote-add-free-text",
    ),
    path(
        "quotes/<int:pk>/alternatives/add/",
        quote_views.quote_add_alternative,
        name="quote-add-alternative",
    ),
    path("quotes/<int:pk>/lines/<int:line_pk>/", quote_views.quote_line_update, name="quote-line"),
    path(
        "quotes/<int:pk>/lines/<int:line_pk>/remove/",
        quote_views.quote_line_remove,
        name="quote-line-remove",
    ),
    path("quotes/<int:pk>/terms/", quote_views.quote_terms, name="quote-terms"),
    path(
        "quotes/<int:pk>/payment-terms/",
        quote_views.quote_payment_terms,
        name="quote-payment-terms",
    ),
    path("quotes/<int:pk>/tco/", quote_views.quote_tco, name="quote-tco"),
    path("quotes/<int:pk>/workload/", quote_views.quote_workload, name="quote-workload"),
    path("quotes/<int:pk>/tco-options/", quote_views.quote_tco_options, name="quote-tco-options"),
    path("quotes/<int:pk>/renewals/", renewal_views.quote_renewals_panel, name="quote-renewals"),
    path("quotes/<int:pk>/renewal/", renewal_views.quote_renewal_new, name="quote-renewal"),
    path(
        "quotes/<int:pk>/terms/<uuid:key>/",
        renewal_views.quote_term_start,
        name="quote-term-start",
    ),
    path("quotes/<int:pk>/<slug:action>/", quote_views.quote_action, name="quote-action"),
]
