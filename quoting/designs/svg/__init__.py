"""Domain drawings as SVG strings, built in pure Python (no Django, no templates)."""

from quoting.designs.svg.fabric import fabric_svg

__all__ = ["fabric_svg"]
