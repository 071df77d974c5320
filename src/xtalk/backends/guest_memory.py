"""How much RAM a probe guest needs on this host: its bench's buffers (every `size`
parameter, from the spec or the catalogue's default such as "llc*2", resolved with the
run's caches (spec/sizes.run_caches), times the buffers the bench allocates of that size) plus room for the
image, the ring, the stack and the page tables.

The qemu backend gives a probe guest this much when the spec sets no memory_mib, so the
quickstart's cache thrash over 1.5 times the last-level cache fits on a host whose LLC is
480 MiB as well as on one with 8 MiB. Caveat: a bench that allocates more than its size
parameters (pointer_chase: an order array of size/16) is covered by the 1/8 margin only;
one that allocates several buffers of a size says so in the catalogue (`buffers`, declared
in its C file: memcpy's source and destination). A bench that runs on every vCPU of its
guest (the catalogue's `smp`: dhrystone, cachebench, stream) allocates its buffers once per
vCPU, so a guest of N vCPUs needs N times them; a bench that runs on one needs them once.

`fitted_params` cuts a bench's sizes to what a probe guest can allocate (the channel
study's defaults, llc*2 of a host whose LLC is over half a GiB), over all its vCPUs, and
says what it cut.
"""
from __future__ import annotations

from ..spec import catalogue
from ..spec.plan import GuestPlan
from ..spec.sizes import bench_sizes, human
from .base import runs_on_each_vcpu

FLOOR_MIB = 256  # what a probe guest gets at least (and what it got before sizing)
FIXED_MIB = 64  # image, ring, stack and page tables
MARGIN = 1.125  # what benches allocate beside their size parameters
ALIGN_MIB = 64
# what a probe guest's buffers can take together: xt_alloc hands out RAM below 4 GiB only
# (the identity map's end, guests/lib/x86_64/mem.c), under the machine's MMIO hole; a
# memcpy of 2 x 1.6 GB failed "out of memory" in a microvm of 3.5 GiB
PROBE_BUFFERS_MAX = 2 << 30


def copies(bench: str, vcpus: int) -> int:
    """How many times a probe bench allocates its buffers in a guest of `vcpus` vCPUs: once
    per vCPU where it runs on each (base.runs_on_each_vcpu), else once."""
    return vcpus if vcpus > 1 and runs_on_each_vcpu(bench) else 1


def buffer_bytes(guest: GuestPlan, caches: dict[str, int]) -> int:
    """The bytes of the bench's buffers on all the guest's vCPUs (0 when its bench is not
    in the catalogue)."""
    sizes = bench_sizes(guest.bench, guest.params, caches, suites=("probe",))
    bench = catalogue.load().bench(guest.bench, ("probe",))
    return (sum(nbytes or 0 for _, nbytes in sizes.values()) * (bench.buffers if bench else 1)
            * copies(guest.bench, guest.vcpus))


def probe_memory_mib(guest: GuestPlan, caches: dict[str, int]) -> int:
    """RAM for a probe guest running `guest`'s bench with these caches, in MiB."""
    need = buffer_bytes(guest, caches) * MARGIN / (1 << 20) + FIXED_MIB
    return max(FLOOR_MIB, -(-int(need) // ALIGN_MIB) * ALIGN_MIB)


def fitted_params(bench: str, params: dict, caches: dict[str, int], vcpus: int = 1) -> tuple[dict, str | None]:
    """`params` with every size parameter of the probe bench scaled down alike (to whole
    pages) so its buffers take at most PROBE_BUFFERS_MAX, on all `vcpus` of its guest
    together where it runs on each, and what was cut, in words (None where they fit, or
    the bench is not a probe bench)."""
    found = catalogue.load().bench(bench, ("probe",))
    sizes = {name: (text, nbytes) for name, (text, nbytes) in bench_sizes(bench, params, caches, ("probe",)).items()
             if nbytes}
    n = copies(bench, vcpus)
    total = sum(nbytes for _, nbytes in sizes.values()) * (found.buffers if found else 1) * n
    if found is None or total <= PROBE_BUFFERS_MAX:
        return params, None
    out, cut = dict(params), []
    for name, (text, nbytes) in sizes.items():
        out[name] = nbytes * PROBE_BUFFERS_MAX // total // 4096 * 4096
        cut.append(f"{name}={text} = {human(nbytes)} to {human(out[name])}")
    each = f" on each of its {n} vCPUs" if n > 1 else ""
    return out, (f"sized down: {'; '.join(cut)}{each}, as a probe guest's buffers take at most "
                 f"{human(PROBE_BUFFERS_MAX)} together (below 4 GiB)")
