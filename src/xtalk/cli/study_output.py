"""What `xtalk channels` and `xtalk search` show when their campaign ends: the full
analysis of the campaign, its report written (report/, evidence.json included), and on the
terminal the headline's machine line (whether this machine could answer) and the
"Interference channels" table."""
from __future__ import annotations

from pathlib import Path

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def print_and_report(store_path: str, out: Console, show: bool = True) -> list[dict]:

    """Analyse the study's campaign in full, write its report; the channel rows."""
    from ..analysis.pipeline import analyze
    from ..report import terminal
    from ..report.build import write_report
    from ..report.headline import machine_part
    from ..report.interference import channel_table
    from ..results.store import CampaignStore
    store = CampaignStore(Path(store_path))
    store.manifests.verify = True  # the evidence's runs hashed before evidence.json cites them
    analysis = analyze(store)
    files = write_report(analysis, store.path / "report")
    rows = analysis.result["channels"]
    if show:
        machine = machine_part(analysis.result)  # first: whether this machine could answer at all
        out.print(f"machine: {machine['text']}", style=terminal.STYLES.get(machine["state"]), soft_wrap=True)
        terminal.table(channel_table(rows), out)
        out.print(f"report: {files['html']}")
        out.print(f"evidence: {files.get('evidence')}")
    return rows
