"""Campaign specs: model, TOML loading with located errors, JSON Schema export.

May import: images, parsers, telemetry, host, results, remote, cache, plugins, files, tty,
signals, errors (the layers below it, pyproject.toml).
"""
from .load import load_campaign, parse_campaign
from .model import Campaign

__all__ = ["Campaign", "load_campaign", "parse_campaign"]
