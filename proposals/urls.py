from django.urls import path

from proposals import views
from proposals.share import views as shared

app_name = "proposals"
urlpatterns = [
    # Staff (signed in, scoped through quotes_visible_to)
    path("quotes/<int:quote_id>/proposal/", views.proposal_page, name="page"),
    path("quotes/<int:quote_id>/proposal-panel/", views.proposal_panel, name="panel"),
    path("quotes/<int:quote_id>/proposal/generate/", views.proposal_generate, name="generate"),
    path("quotes/<int:quote_id>/share-links/", views.share_link_new, name="link-create"),
    path("share-links/<int:link_id>/revoke/", views.share_link_cancel, name="link-revoke"),
    path("proposals/<int:document_id>/status/", views.document_status, name="document-status"),
    path("proposals/<int:document_id>/pdf/", views.document_pdf, name="document-pdf"),
    path("quotes/<int:quote_id>/acceptance/", views.acceptance_panel, name="acceptance"),
    path(
        "quotes/<int:quote_id>/acceptance/signed.pdf",
        views.acceptance_signed_pdf,
        name="acceptance-signed-pdf",
    ),
    path(
        "quotes/<int:quote_id>/acceptance/countersign/",
        views.acceptance_countersign_view,
        name="acceptance-countersign",
    ),
    path(
        "quotes/<int:quote_id>/acceptance/signature.png",
        views.acceptance_signature,
        name="acceptance-signature",
    ),
    path(
        "quotes/<int:quote_id>/revisions/<int:number>/as-built/<int:check_id>/report.pdf",
        views.as_built_pdf,
        name="as-built-pdf",
    ),
    path(
        "quotes/<int:quote_id>/revisions/<int:number>/as-built/<int:check_id>/sign-off/",
        views.as_built_sign_off_request,
        name="as-built-sign-off",
    ),
    # Customers (the token is the only key; every route checks it the same way: share.guard)
    path("p/<str:token>", shared.shared_page, name="shared"),
    path("p/<str:token>/pdf", shared.shared_pdf, name="shared-pdf"),
    path("p/<str:token>/xlsx", shared.shared_xlsx, name="shared-xlsx"),
    path("p/<str:token>/drawing", shared.shared_drawing, name="shared-drawing"),
    path("p/<str:token>/drawing.svg", shared.shared_drawing_svg, name="shared-drawing-svg"),
    path("p/<str:token>/accept", shared.shared_accept, name="shared-accept"),
    path("p/<str:token>/price", shared.shared_price, name="shared-price"),
    path("p/<str:token>/signed.pdf", shared.shared_signed_pdf, name="shared-signed-pdf"),
    path("p/<str:token>/decline", shared.shared_decline, name="shared-decline"),
    path("p/<str:token>/beacon", shared.shared_beacon, name="shared-beacon"),
    path("p/<str:token>/as-built/sign", shared.shared_as_built_sign, name="shared-as-built-sign"),
    path("p/<str:token>/as-built.pdf", shared.shared_as_built_pdf, name="shared-as-built-pdf"),
    path(
        "p/<str:token>/signature.png",
        shared.shared_signature_preview,
        name="shared-signature-preview",
    ),
]
