from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from catalog.filters import ProductFilter
from catalog.models import Product
from catalog.selectors import product_list
from portal.api.base import ApiViewSetMixin
from quoting.engine.money import MONEY_DIGITS, MONEY_PLACES


class PriceSerializer(serializers.Serializer):
    currency = serializers.CharField(source="price_list.currency")
    list_price = serializers.DecimalField(max_digits=MONEY_DIGITS, decimal_places=MONEY_PLACES)
    price_list = serializers.CharField(source="price_list.name")
    is_reference = serializers.BooleanField(source="price_list.is_reference")


class ProductSpecsSerializer(serializers.ModelSerializer):
    class Meta:
        model = Product
        fields = [
            "port_count",
            "port_speed_gbps",
            "cage_type",
            "cage_count",
            "managed",
            "rack_units",
            "power_typical_w",
            "power_max_w",
            "media",
            "reach_m",
            "length_m",
            "form_factor",
            "ports_per_module",
            "breakout",
            "gpu_model",
            "gpu_count",
            "gpu_peak_tflops",
            "weight_kg",
            "uplink_port_count",
            "uplink_speed_gbps",
            "port_names",
            "cooling",
        ]


class ProductSerializer(serializers.ModelSerializer):
    specs = ProductSpecsSerializer(source="*", read_only=True)
    prices = PriceSerializer(source="default_prices", many=True, read_only=True)

    class Meta:
        model = Product
        fields = [
            "part_number",
            "name",
            "name_zh",
            "category",
            "family",
            "generation",
            "protocol",
            "lifecycle",
            "unit",
            "description_en",
            "description_zh",
            "export_classification",
            "export_classification_source",
            "lead_time_weeks",
            "specs",
            "prices",
            "updated_at",
        ]


@extend_schema_view(
    list=extend_schema(
        summary="List products",
        description="Filter by category, generation, "
        "protocol, lifecycle and free text `q`; paginated.",
    ),
    retrieve=extend_schema(summary="One product by part number"),
)
class ProductViewSet(ApiViewSetMixin, viewsets.ReadOnlyModelViewSet):
    """The NVIDIA networking catalog with typed specs and default list prices (cost is internal)."""

    serializer_class = ProductSerializer
    filterset_class = ProductFilter
    lookup_field = "part_number"
    lookup_value_regex = r"[A-Za-z0-9][A-Za-z0-9._-]*"

    def get_queryset(self):
        return product_list()
