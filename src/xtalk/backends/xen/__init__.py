"""The `xen` backend (backend.py) and its parts: connecting to dom0 and what the Xen offers
(host.py), `xl`'s output (xl.py), domain consoles (console.py), guest images (images.py),
cpupools (pools.py) and the host stressors that run in dom0 (dom0.py). Imported by name
when the backends are first asked for (xtalk.plugins): importing it registers the backend.
"""
from .backend import XenBackend

__all__ = ["XenBackend"]
