"""What every in-process benchmark starts with: the project importable, the base settings with
DEBUG off (query logging would be measured too), a throw-away var directory, Django set up.

A benchmark calls `django_ready()` before importing the project's modules."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def django_ready() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings.base")
    os.environ.setdefault("FABRICQUOTE_VAR_DIR", tempfile.mkdtemp(prefix="fq-bench-"))
    os.environ["DEBUG"] = "false"
    import django

    django.setup()
