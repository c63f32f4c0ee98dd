"""The TCO engine and the money helpers never import Django (docs/architecture.md, layer rule 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCES = [
    *sorted((ROOT / "quoting" / "engine" / "tco").glob("*.py")),
    ROOT / "quoting/engine/money.py",
]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_tco_engine_module_imports_django():
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imported_modules(path) if m.startswith("django")
        )
        for path in SOURCES
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}


def test_importing_the_tco_engine_loads_no_django():
    code = (
        "import sys, quoting.engine.tco, quoting.engine.money; "
        "sys.exit(any(m.split('.')[0] == 'django' for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False).returncode == 0
