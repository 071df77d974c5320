"""xtalk: measure temporal isolation between virtual machines."""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("xtalk")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+src"
