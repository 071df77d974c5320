"""Campaign specs: model, TOML loading with located errors, JSON Schema export."""
from .load import load_campaign, parse_campaign
from .model import Campaign

__all__ = ["Campaign", "load_campaign", "parse_campaign"]
