"""How much RAM a probe guest needs on this host: its bench's buffers (every `size`
parameter, from the spec or the catalogue's default such as "llc*2", resolved with this
host's caches) plus room for the image, the ring, the stack and the page tables.

The qemu backend gives a probe guest this much when the spec sets no memory_mib, so the
quickstart's cache thrash over 1.5 times the last-level cache fits on a host whose LLC is
480 MiB as well as on one with 8 MiB. Caveat: a bench that allocates more than its size
parameters (pointer_chase: an order array of size/16) is covered by the 1/8 margin only.
"""
from __future__ import annotations

from ..plan import GuestPlan
from ..spec import catalogue

FLOOR_MIB = 256  # what a probe guest gets at least (and what it got before sizing)
FIXED_MIB = 64  # image, ring, stack and page tables
MARGIN = 1.125  # what benches allocate beside their size parameters
ALIGN_MIB = 64


def cache_sizes(host: dict) -> dict[str, int]:
    """Bytes of each cache level (l1, l2, l3: data or unified caches of cpu0) and llc."""
    sizes = {f"l{c['level']}": c["size_bytes"] for c in host.get("caches", [])
             if c["type"] in ("Unified", "Data") and c["size_bytes"]}
    return sizes | ({"llc": host["llc_bytes"]} if host.get("llc_bytes") else {})


def buffer_bytes(guest: GuestPlan, host: dict) -> int:
    """The bytes of the bench's size parameters (0 when its bench is not in the catalogue)."""
    bench = catalogue.load().bench(guest.bench, ("probe",))
    if bench is None:
        return 0
    caches = cache_sizes(host)
    total = 0.0
    for name, param in bench.params.items():
        value = guest.params.get(name, param.default)
        if param.type != "size" or value is None:
            continue
        try:
            total += (float(value) if isinstance(value, (int, float)) else
                      catalogue.size_bytes(str(value), caches) or 0.0)
        except ValueError:  # spec check refuses it; the guest says so too
            continue
    return int(total)


def probe_memory_mib(guest: GuestPlan, host: dict) -> int:
    """RAM for a probe guest running `guest`'s bench on this host, in MiB."""
    need = buffer_bytes(guest, host) * MARGIN / (1 << 20) + FIXED_MIB
    return max(FLOOR_MIB, -(-int(need) // ALIGN_MIB) * ALIGN_MIB)
