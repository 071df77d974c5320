"""xtalk: measure temporal isolation between virtual machines."""

__version__ = "0.1.0"  # pyproject.toml reads it from here
