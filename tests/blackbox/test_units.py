"""No number is shown in a unit that is not its own: campaigns with a metric of every kind
and unit (times in cycles: duration, latency, gap; a count: loss and throughput; rates:
MB/s, DMIPS), imported from XT logs, through `xtalk show`, `xtalk report` (terminal,
Markdown, HTML, JSON) and `xtalk compare` (terminal, HTML, JSON). Every value cell of a
count or rate carries its own unit and never a time's; no WCET or pWCET is given for
them; the time metrics are shown as times (so the check can fail)."""
from __future__ import annotations

import html
import json
import random
import re

import pytest

from tests.framework.cli import xtalk

METRICS = (  # name, unit, kind, typical value
    ("qsort", "cycles", "duration", 20000), ("lat", "cycles", "latency", 5000), ("gaps", "cycles", "gap", 3000),
    ("missed", "count", "loss", 3), ("ops", "count", "throughput", 250000), ("bw", "MB/s", "throughput", 12000),
    ("dhry", "DMIPS", "throughput", 900))
OWN = {name: unit for name, unit, _, _ in METRICS if unit != "cycles"}
TIME = re.compile(r"\d\s*(ns|µs|us|ms|cycles)\b|WCET")
VALUE_HEADERS = {"min", "Q1", "median", "Q3", "max", "mean", "sd", "p90", "p99", "p99.9", "p99.99", "outlier",
                 "first sample"}


def xt_log(path, slower: float, seed: int) -> str:
    """One run's console in xtalk's protocol: 400 samples of each metric (1,200 a configuration: enough for pWCET), times `slower`
    worse than solo (longer times, more misses, fewer operations)."""
    rng = random.Random(seed)
    lines = ["XT BEGIN run=r1 bench=mix role=measurer arch=x86_64 freq_hz=2000000000 platform=native t0=0"]
    lines += [f"XT METRIC run=r1 id={i} name={n} unit={u} kind={k}" for i, (n, u, k, _) in enumerate(METRICS)]
    seq = 0
    for j in range(400):
        for i, (_, _, kind, typical) in enumerate(METRICS):
            factor = 1 / slower if kind == "throughput" else slower
            lines.append(f"XT SAMPLE run=r1 seq={seq} metric={i} t={j * 10_000_000} "
                         f"value={round(typical * factor * rng.uniform(0.9, 1.1))}")
            seq += 1
    lines += [f"XT META run=r1 window_ticks_{i}=2000000000" for i in range(len(METRICS))]
    lines.append(f"XT END run=r1 status=pass samples={seq}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def imported(tmp_path, name: str, slower: float, seed: int):
    out = tmp_path / "results"
    for placement, factor in (("solo", 1.0), ("same-core", slower)):
        logs = [xt_log(tmp_path / f"{name}-{placement}-{i}.log", factor, seed + i) for i in range(3)]
        res = xtalk("import", name, "--output", "xt", "--config", f"placement={placement}", "--out", out, *logs,
                    *(["--append"] if placement != "solo" else []))
        assert res.returncode == 0, res.stderr
    (campaign,) = out.glob(f"{name}-*")
    return campaign


def terminal_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """rich's tables: (headers, rows), a cell wrapped over several lines joined."""
    tables, headers, rows = [], None, []
    for line in text.splitlines():
        if line.startswith("┃"):
            cells = [c.strip() for c in line.strip("┃").split("┃")]
            headers = cells if headers is None or rows else [f"{a} {b}".strip() for a, b in zip(headers, cells)]
            rows = [] if headers is cells else rows
        elif line.startswith("│") and headers is not None:
            cells = [c.strip() for c in line.strip("│").split("│")]
            if rows and not cells[0] and not cells[1]:
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
            else:
                rows.append(cells)
        elif line.startswith("└") and headers is not None:
            tables.append((headers, rows))
            headers, rows = None, []
    return tables


def markdown_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    tables = []
    for block in re.findall(r"(?:^\|.*\|\n)+", text, re.M):
        lines = [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.splitlines()]
        tables.append((lines[0], lines[2:]))
    return tables


def html_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each table's headers and rows, a cell's text with its tooltip (the sentence)."""
    def cell(attrs: str, inner: str) -> str:
        title = re.search(r'title="([^"]*)"', attrs)
        return html.unescape(re.sub(r"<[^>]+>", "", inner) + (" " + title[1] if title else "")).strip()
    tables = []
    for body in re.findall(r"<table.*?</table>", text, re.S):
        headers = [html.unescape(re.sub(r"<[^>]+>", "", h)).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", body, re.S)]
        rows = [[cell(a, i) for a, i in re.findall(r"<td([^>]*)>(.*?)</td>", tr, re.S)]
                for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]
        tables.append((headers, [r for r in rows if r]))
    return tables


def check_units(tables, where: str) -> int:
    """Every row of a count or rate metric: no time unit, no WCET, its value cells in its
    unit; a time metric's value cells hold a time. The rows checked, counted."""
    checked = 0
    for headers, rows in tables:
        for row in rows:
            metric = next((c for c in row if c in OWN or c in ("qsort", "lat")), None)
            if metric is None:
                continue
            values = [c for h, c in zip(headers, row) if (h.rstrip(" *") in VALUE_HEADERS or "→" in h)
                      and c not in ("-", "")]
            if metric in OWN:
                bad = [c for c in row if TIME.search(c)]
                assert not bad, f"{where}: {metric} ({OWN[metric]}) shown as a time: {bad} in {row}"
                assert all(OWN[metric] in c for c in values), f"{where}: {metric} without its unit: {row}"
            else:
                assert all(re.search(r"µs|ns|ms|cycles", c) for c in values), f"{where}: {metric} not a time: {row}"
            checked += 1
    return checked


@pytest.mark.slow
def test_counts_and_rates_keep_their_units_in_show_report_and_compare(tmp_path):
    a, b = imported(tmp_path, "mixa", 1.6, 1), imported(tmp_path, "mixb", 1.3, 20)

    shown = xtalk("show", a)
    assert shown.returncode == 0, shown.stderr
    assert check_units(terminal_tables(shown.stdout), "show") >= 30
    assert "max = WCET" not in shown.stdout

    report = xtalk("report", a, "--out", tmp_path / "results", "--no-plots")  # tables; plots: test_report.py
    assert report.returncode == 0, report.stderr
    files = a / "report"
    assert check_units(terminal_tables(report.stdout), "report (terminal)") >= 0
    assert check_units(markdown_tables((files / "report.md").read_text()), "report.md") >= 30
    page = (files / "report.html").read_text()
    assert check_units(html_tables(page), "report.html") >= 30
    data = json.loads((files / "report.json").read_text())
    for e in data["evt"]:
        assert (e["status"] == "not applicable") == (e["metric"] in OWN), e
        if e["metric"] in OWN:
            assert "not a time" in e["reasons"][0] and not e.get("pwcet")
    for row in data["stats"] + data["stats_runs"]:  # a count or rate: no ns twin, no WCET
        assert (row["metric"] in OWN) != ("median_ns" in row and "wcet" in row), row
    for v in data["verdicts"]:
        said = [v["statistic_label"], v["sentence"], *(s["statistic_label"] for s in v["secondary"])]
        if v["metric"] in OWN:
            assert not any(TIME.search(t) for t in said), said
            assert OWN[v["metric"]] in v["sentence"], v["sentence"]
    (headers, pwcet_rows), = [(h, rows) for h, rows in html_tables(page) if "pWCET 1e-3" in h]
    assert {r[1] for r in pwcet_rows if r[2] == "not applicable"} == set(OWN)
    fitted = [r[headers.index("pWCET 1e-6")] for r in pwcet_rows if r[2] == "ok"]
    assert fitted and all(c.endswith("µs)") for c in fitted), fitted  # ticks (time), as every time

    compared = xtalk("compare", a, b, "--out", tmp_path / "results")
    assert compared.returncode in (0, 1), compared.stderr
    assert check_units(terminal_tables(compared.stdout), "compare") >= 10
    (out,) = (tmp_path / "results").glob("compare-*")
    assert check_units(html_tables((out / "compare.html").read_text()), "compare.html") >= 10
    for row in json.loads((out / "compare.json").read_text())["rows"]:
        if row["metric"] in OWN:
            assert not TIME.search(row["sentence"]) and OWN[row["metric"]] in row["sentence"], row["sentence"]
