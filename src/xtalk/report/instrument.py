"""What an instrument saw in each run (meta.json `instrument`, xtalk.instruments): the
stimuli of the measured window, the ones answered, the lost responses (a stimulus with
no response before the next one: a lost interrupt, or one served after the next came)
with the time of the first ones, response edges no stimulus claimed, and the capture's
resolution and alignment with the run's timeline. The report's table, the run summary's
line, and `xtalk show RUN`'s line.
"""
from __future__ import annotations

from ..analysis import wording
from .tables import Table, num

LISTED = 3  # lost responses named by their time in a line


def runs_with_instrument(res: dict) -> list[dict]:
    return [r for r in res["runs"] if r.get("instrument")]


def lost_words(facts: dict) -> str:
    """'3 lost responses (at 0.012, 0.340, 0.871 s)', or 'no lost response'."""
    lost = facts.get("lost") or 0
    if not lost:
        return "no lost response"
    times = ", ".join(wording.num(t) for t in (facts.get("lost_t_s") or [])[:LISTED])
    more = ", ..." if lost > LISTED else ""
    return f"{num(lost)} lost response{'s' if lost != 1 else ''}" + (f" (at {times}{more} s)" if times else "")


def instrument_words(facts: dict) -> str:
    """One run's capture in a line (`xtalk show RUN`)."""
    return (f"{facts['kind']} ({facts.get('device') or '?'}): {facts['stimulus']} -> {facts['response']} at "
            f"{num(facts['samplerate_hz'])} Hz, resolution {wording.duration(facts['resolution_ns'])}: "
            f"{num(facts['stimuli'])} stimuli in the window, {num(facts['answered'])} answered, {lost_words(facts)}, "
            f"{num(facts.get('unexpected_responses') or 0)} unexpected response edges; on the run's timeline within "
            f"{wording.duration(facts.get('align_ns'))}; capture {facts.get('file') or '-'}")


def instrument_table(res: dict) -> Table:
    t = Table("instrument", "Instrument per run: what a capture from outside the guests saw",
              ["run", "metric", "stimulus -> response", "resolution", "stimuli", "answered", "lost responses",
               "unexpected edges", "aligned within"],
              note="a lost response is a stimulus with no response edge before the next stimulus (a lost "
                   "interrupt, or one served only after the next came): counted, never dropped, and no sample of "
                   "the metric; every delay is a whole number of sample periods (the resolution); the stimuli "
                   "count the run's measured window, the capture file (instrument.sr in the run) holds all of it.")
    for r in runs_with_instrument(res):
        f = r["instrument"]
        t.rows.append([r["run_id"], f["metric"], f"{f['stimulus']} -> {f['response']}", wording.duration(f["resolution_ns"]),
                       num(f["stimuli"]), num(f["answered"]), lost_words(f), num(f.get("unexpected_responses") or 0),
                       wording.duration(f.get("align_ns"))])
    return t


def instrument_brief(res: dict) -> list[str]:
    """The run summary's line: the lost responses of every run, or that there were none."""
    runs = runs_with_instrument(res)
    lost = sum(r["instrument"].get("lost") or 0 for r in runs)
    stimuli = sum(r["instrument"].get("stimuli") or 0 for r in runs)
    hit = [r["run_id"] for r in runs if r["instrument"].get("lost")]
    where = f" in {len(hit)} of {len(runs)} runs ({', '.join(hit[:LISTED])}{', ...' if len(hit) > LISTED else ''})" \
        if hit else f" in {len(runs)} runs"
    return [f"instrument: {num(lost)} lost responses of {num(stimuli)} stimuli{where}"]
