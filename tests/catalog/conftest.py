import pytest

from catalog.services import catalog_load_seed


@pytest.fixture
def seeded(db):
    """The shipped catalog with its reference prices."""
    return catalog_load_seed()
