"""What to do when a campaign has one configuration only: every metric is its own baseline
and no verdict can be given. The hint names the exact command that adds a second one
(`xtalk import ... --append` for an imported campaign, a matrix entry for a measured one);
`xtalk import` prints it after a solo-only import and the report shows it with its doubts.
"""
from __future__ import annotations

IMPORTED = "imported"  # importer.BACKEND: the backend kind of a campaign made by `xtalk import`


def second_config_hint(name: str, spec: dict, configs: dict[str, dict], out: str) -> str | None:
    """The hint for a campaign `name` in the results directory `out` whose configurations
    are `configs` (id -> dimension values); None where it has two or more, or compares
    on- and off-windows inside its runs (a timeline or [paired])."""
    if len(configs) != 1 or spec.get("timeline") or spec.get("paired"):
        return None
    (config_id,) = configs
    placement = (next(iter(configs.values())) or {}).get("placement", "solo")
    other = "same-core" if placement == "solo" else "solo"
    head = (f"one configuration only ({config_id}): every metric is its own baseline, so no verdict is possible; "
            f"add a second configuration to compare with")
    if (spec.get("backend") or {}).get("kind") == IMPORTED:
        output = (spec.get("measurer") or {}).get("output") or "PARSER"
        return (f"{head}, e.g. the logs of runs with a neighbour on the same core: "
                f"xtalk import {name} --output {output} --config placement={other} --append --out {out} LOG...")
    both = ["solo", placement if placement != "solo" else other]
    return f"{head}: a second placement in the spec's matrix, e.g. [matrix] placement = [\"{both[0]}\", \"{both[1]}\"]"
