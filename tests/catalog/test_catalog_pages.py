import pytest


def test_staff_browse_and_search_the_catalog(sales_client, seeded):
    page = sales_client.get("/catalog/?q=QM9700").content.decode()
    assert "MQM9700-NS2F" in page and "MQM8700-HS2F" not in page
    assert "32,000.00 USD" in page


def test_search_as_you_type_returns_only_the_table(sales_client, seeded):
    response = sales_client.get("/catalog/?category=cable&q=splitter", HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "<html" not in body and "MCP7Y00-N001" in body and "MQM9700" not in body


def test_an_empty_result_says_what_to_do(sales_client, seeded):
    body = sales_client.get("/catalog/?q=nothing-like-this").content.decode()
    assert "No product matches" in body


def test_the_product_page_shows_specs_and_reference_prices(sales_client, seeded):
    body = sales_client.get("/catalog/MQM9790-NS2F/").content.decode()
    assert "unmanaged" in body and "reference" in body and "OSFP" in body


def test_an_unknown_product_page_is_a_404(sales_client, seeded):
    assert sales_client.get("/catalog/NOPE/").status_code == 404


def test_user_text_is_escaped_on_the_catalog_page(sales_client, seeded):
    from catalog.models import Product

    Product.objects.filter(part_number="SVC-NCCL-TUNING").update(name="<script>x()</script>")
    body = sales_client.get("/catalog/?category=service").content.decode()
    assert "<script>x()</script>" not in body and "&lt;script&gt;" in body


def test_the_catalog_page_costs_a_fixed_number_of_queries(
    sales_client, seeded, django_assert_max_num_queries
):
    with django_assert_max_num_queries(9):  # 8, and the header's work counts (portal/work.py)
        sales_client.get("/catalog/")


@pytest.mark.parametrize("path", ["/", "/catalog/", "/catalog/MQM9700-NS2F/"])
def test_pages_render_in_chinese(sales_client, seeded, path):
    sales_client.post("/i18n/language/", {"language": "zh-hans", "next": "/"})
    body = sales_client.get(path).content.decode()
    assert '<html lang="zh-hans">' in body
