"""Configurations as a person reads them: the value of each dimension that tells it
apart, a size with the bytes it meant in the runs (`other-core, 3 × copy, copy size llc/2
(240 MiB)`), from the configurations' dimension values (analysis result `configs`) and
the sizes the runs recorded (meta.json `sizes`, xtalk.spec.sizes). The config id stays the key
everywhere; this is its label in the answer, the setup and the plots.

Caveat: a size's bytes come from the first run of the configuration that recorded them
(runs of one campaign share the host, so they agree); runs of an xtalk that recorded no
sizes show the text alone.
"""
from __future__ import annotations

from ..spec.plan import BARE_DIMS
from ..spec.sizes import label as size_label


def config_sizes(res: dict) -> dict[str, dict[str, dict]]:
    """config id -> {spec path of a size parameter: {"text", "bytes"}}."""
    out: dict[str, dict[str, dict]] = {}
    for r in res.get("runs") or []:
        for path, size in (r.get("sizes") or {}).items():
            out.setdefault(r.get("config_id"), {}).setdefault(path, size)
    return out


def size_dims(res: dict) -> list[str]:
    """Dimensions of the matrix that set a size parameter the runs recorded in bytes."""
    recorded = {p for sizes in config_sizes(res).values() for p in sizes}
    return [d for d in varying(res) if d in recorded]


def varying(res: dict) -> list[str]:
    """Dimensions whose value differs between configurations (start order among the
    non-solo ones: solo has none): placement, start order and backend first, the others
    by name (the stored spec does not keep the matrix's order)."""
    configs = list((res.get("configs") or {}).values())
    order = {d: i for i, d in enumerate(BARE_DIMS)}
    dims = sorted({k for c in configs for k in c}, key=lambda d: (order.get(d, len(order)), d))
    out = []
    for d in dims:
        pool = [c for c in configs if c.get("placement") != "solo"] if d == "start_order" else configs
        if len({str(c.get(d)) for c in pool}) > 1:
            out.append(d)
    return out


def value_text(res: dict, cid: str, dim: str, sizes: dict[str, dict[str, dict]]) -> str:
    """A dimension's value in a configuration; a size (`sizes`: config_sizes) with its
    bytes: `llc/2 (240 MiB)`."""
    value = (res.get("configs") or {}).get(cid, {}).get(dim)
    size = (sizes.get(cid) or {}).get(dim)
    if size and str(size.get("text")) == str(value):
        return size_label(str(value), size.get("bytes"))
    return str(value)


def part(dim: str, text: str) -> str:
    """One dimension in a label: `other-core`, `qemu`, `3 × copy`, `copy size llc/2 (240 MiB)`, `bench qsort`."""
    path = dim.split(".")
    if dim in BARE_DIMS:
        return text
    if path[0] == "stressors" and len(path) == 3 and path[2] == "instances":
        return f"{text} × {path[1]}"
    if path[0] == "stressors" and len(path) == 4 and path[2] == "params":
        return f"{path[1]} {path[3]} {text}"
    return f"{path[-1]} {text}"


def labels(res: dict, dims: list[str] | None = None) -> dict[str, str]:
    """config id -> its label over `dims` (default: every dimension that varies)."""
    dims = varying(res) if dims is None else dims
    sizes = config_sizes(res)
    out = {}
    for cid, config in (res.get("configs") or {}).items():
        parts = [part(d, value_text(res, cid, d, sizes)) for d in dims if d in config
                 and not (d == "start_order" and config.get("placement") == "solo")]
        out[cid] = ", ".join(parts) or cid
    return out
