"""Writes and computations of the quoting app, one module per concern (designs, tco, quotes)."""
