"""The repository root, for tests and framework modules that read or build its files."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
