"""The design check (docs/spec.md, "Design check"): what a campaign's runs can answer,
before any runs (check.py), and the noise of one unit on this host where a stored
campaign has measured it (noise.py)."""
from .check import Design, Row, check_design

__all__ = ["Design", "Row", "check_design"]
