"""The design check (docs/spec.md, "Design check"): what a campaign's runs can answer,
before any runs (check.py), and the noise of one unit on this host where a stored
campaign has measured it (noise.py).

May import: analysis, backends, instruments, spec, images, parsers, telemetry, host,
results, remote, cache, plugins, files, tty, signals, errors, controls (the layers below it,
pyproject.toml).
"""
from .check import Design, Row, check_design

__all__ = ["Design", "Row", "check_design"]
