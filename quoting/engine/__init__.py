"""Pure-Python domain engine: fabric design, bill of materials, TCO, money.

Nothing in this package imports Django (a test enforces it). Services convert catalog and quote
models to these frozen dataclasses and back.
"""
