"""Django loads the `quoting` app's models from here: each sub-app keeps its own.

The tables keep their names (`quoting_<model>`) and the app label stays `quoting`: a model's
module moved, nothing in the database did. Import models from their sub-app
(`quoting.quotes.models`, ...), not from here: a sub-app importing this module would import
the ones above it.
"""

from quoting.customers import models as customers  # noqa: F401
from quoting.designs import models as designs  # noqa: F401
from quoting.quotes import models as quotes  # noqa: F401
