"""Backends: one file per hypervisor (or the bare machine); see base.py."""

# The xen backend registers on import. base.backend_class() imports native and qemu only;
# importing xen here makes kind = "xen" known wherever backends are looked up.
from . import xen  # noqa: E402,F401
