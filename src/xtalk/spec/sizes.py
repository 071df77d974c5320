"""Size parameters in bytes: what `llc/2` or `l2*4` meant in a run.

A bench's size parameter (catalogue type `size`) may be given in units of the cache
topology of the machine that runs it: guests/lib/cmdline.c resolves `l1`, `l2`, `l3`,
`llc` and `shared` with `*`/`/` factors there. Each run records, in meta.json, the
caches it resolved them with (`caches`, with their `source`) and the bytes of every size
parameter of the guests it ran (`sizes`, keyed by spec path as in [matrix]:
`stressors.copy.params.size`), default values included, so a sweep over cache units is
plotted and labelled in bytes.

The caches a campaign passes its guests, and their source: spec/run_caches.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import catalogue

if TYPE_CHECKING:
    from .plan import RunPlan

LEVELS = ("l1", "l2", "l3", "llc", "shared")
SUITES = tuple(s for suites in catalogue.IMAGE_SUITES.values() for s in suites)  # what the guest images run
UNITS = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def host_caches(host: dict) -> dict[str, int]:
    """Bytes of each cache level (l1, l2, l3: data or unified caches of cpu0) and llc."""
    sizes = {f"l{c['level']}": c["size_bytes"] for c in host.get("caches", [])
             if c["type"] in ("Unified", "Data") and c["size_bytes"]}
    return sizes | ({"llc": host["llc_bytes"]} if host.get("llc_bytes") else {})


def reported_caches(guest_meta: dict) -> dict[str, int]:
    """The caches a guest reported on XT META (l1_bytes=... llc_bytes=; 0 = none)."""
    out = {}
    for level in LEVELS:
        value = str(guest_meta.get(f"{level}_bytes", ""))
        if value.isdigit() and int(value):
            out[level] = int(value)
    return out


def bench_sizes(bench: str, params: dict, caches: dict[str, int],
                suites: tuple[str, ...] = SUITES) -> dict[str, tuple[str, int | None]]:
    """{param: (the text given or its default, bytes)} for every size parameter of the
    bench; bytes None when a cache level is unknown or the text is no size (spec check
    refuses it; the guest says so too). Empty for a bench not in the catalogue."""
    found = catalogue.load().bench(bench, suites)
    out = {}
    for name, param in (found.params.items() if found else ()):
        value = params.get(name, param.default)
        if param.type != "size" or value is None:
            continue
        try:
            amount = float(value) if isinstance(value, (int, float)) else catalogue.size_bytes(str(value), caches)
        except ValueError:
            amount = None
        out[name] = (str(value), None if amount is None else int(amount))
    return out


def run_sizes(run: RunPlan, guest_meta: dict, host: dict) -> dict:
    """meta.json's `caches` (with their `source`) and `sizes` of a run's guests."""
    given = dict(run.caches)
    caches = given or reported_caches(guest_meta)
    source = run.caches_source if given else "measurer" if caches else "host"
    caches = caches or host_caches(host)
    sizes = {}
    guests = [("measurer", run.measurer)] + [(f"stressors.{g.stressor}", g) for g in run.stressors]
    for path, guest in guests:
        if guest.foreign:
            continue  # a foreign image's parameters are its own
        for name, (text, nbytes) in bench_sizes(guest.bench, guest.params, caches).items():
            cached = catalogue.cache_unit(text) is not None  # a literal size resolves against nothing
            sizes[f"{path}.params.{name}"] = {"text": text, "bytes": nbytes} | ({"source": source} if cached else {})
    return {"caches": dict(caches, source=source), "sizes": sizes}


def human(nbytes: float) -> str:
    """1 decimal place at most, in the largest binary unit that keeps it >= 1: 240 MiB, 1.5 KiB."""
    name, scale = next(((n, s) for n, s in UNITS if nbytes >= s), ("B", 1))
    return f"{nbytes / scale:.1f}".removesuffix(".0") + f" {name}"


def label(text: str, nbytes: int | None) -> str:
    """A size as given and in bytes: `llc/2 (240 MiB)`; a plain number in bytes: `64 KiB`."""
    if nbytes is None:
        return text
    shown = human(nbytes)
    return shown if text.isdigit() else f"{text} ({shown})"
