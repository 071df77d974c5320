from xtalk.parsers import parse_log
from xtalk.parsers.xt import XtParser, parse_line

LOG = """\
(XEN) d1v0 some hypervisor noise
XT BEGIN run=r1 bench=qsort role=measurer arch=x86_64 freq_hz=2000000000 platform=native
[    0.001] XT META run=r1 overhead_cycles=38 llc_bytes=33554432
XT METRIC run=r1 id=0 name=qsort unit=cycles
XT SAMPLE run=r1 seq=0 metric=0 t=100 value=50
XT SAMPLE run=other seq=9 metric=0 t=1 value=1
XT SAMPLE run=r1 seq=1 metric=0 t=200 value=60 flags=1
XT HIST run=r1 metric=0 log2_bucket=5 count=12
XT ERROR run=r1 msg="sorted check failed at 3"
XT END run=r1 status=fail reason="not sorted"
"""


def test_parse_line_ignores_noise_and_reads_quoted_fields():
    assert parse_line("random kernel message") is None
    assert parse_line("XTEND run=1 status=pass") is None
    rec = parse_line('[  1.0] XT ERROR run=r1 msg="a b c" param=size')
    assert rec.kind == "ERROR" and rec.fields == {"run": "r1", "msg": "a b c", "param": "size"}
    assert parse_line('XT END run=r1 status="unbalanced') is None


def test_report_folds_a_whole_log_and_skips_other_runs():
    report = parse_log(LOG, run_id="r1")
    assert report.freq_hz == 2e9
    assert report.meta == {"overhead_cycles": "38", "llc_bytes": "33554432"}
    assert report.metrics == {0: {"name": "qsort", "unit": "cycles"}}
    assert report.sample_count == 2  # what `xtalk import` checks
    samples = report.take_samples()
    assert samples["seq"].tolist() == [0, 1] and samples["value"].tolist() == [50, 60]
    assert samples["flags"].tolist() == [0, 1]
    assert len(report.take_samples()) == 0
    assert report.hist == {0: {5: 12}}
    assert report.errors[0]["msg"] == "sorted check failed at 3"
    assert report.status == "fail" and report.end["reason"] == "not sorted"


def test_incremental_feed_matches_whole_log():
    report = XtParser(run_id="r1")
    for line in LOG.splitlines():
        report.feed(line)
    assert report.status == "fail" and len(report.take_samples()) == 2


def test_metric_kind_and_kpi_are_kept_and_old_logs_have_none():
    new = parse_log("XT METRIC run=r id=0 name=hidden_latency unit=cycles kind=gap kpi=kernel\n"
                    "XT METRIC run=r id=1 name=timer_missed unit=count kind=loss kpi=kernel\n"
                    "XT META run=r window_ticks_0=2600000000\n")
    assert new.metrics == {0: {"name": "hidden_latency", "unit": "cycles", "kind": "gap", "kpi": "kernel"},
                           1: {"name": "timer_missed", "unit": "count", "kind": "loss", "kpi": "kernel"}}
    assert new.meta["window_ticks_0"] == "2600000000"
    old = parse_log("XT METRIC run=r id=0 name=qsort unit=cycles\n")
    assert old.metrics == {0: {"name": "qsort", "unit": "cycles"}}
    assert "kind" not in old.metrics[0] and "kpi" not in old.metrics[0]
