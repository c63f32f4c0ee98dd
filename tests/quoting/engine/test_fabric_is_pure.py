"""The engine and its drawings never import Django: services convert at the boundary."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PURE = [ROOT / "quoting" / "engine", ROOT / "quoting" / "svg"]


def test_no_engine_or_svg_module_imports_django():
    offenders = []
    for path in (p for folder in PURE for p in folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            if any(n == "django" or n.startswith("django.") for n in names):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_engine_imports_with_django_blocked():
    code = (
        "import sys; sys.modules['django'] = None\n"
        "import quoting.engine.fabric, quoting.designs.svg\n"
        "assert not any(m.startswith('django.') for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
