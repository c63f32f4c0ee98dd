from django.urls import path

from catalog import views

app_name = "catalog"
urlpatterns = [
    path("", views.product_index, name="product-index"),
    path("<str:part_number>/", views.product_detail, name="product-detail"),
]
