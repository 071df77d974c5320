"""report/headline.py on analysis results made by hand: which verdict leads, which
quantile is reliable enough to be the worst case, a deadline met or missed, counts and
throughputs in their own unit, runs that failed or were not run, gates only where there are."""
from xtalk.report.headline import headline, lines

NS = 10.0  # ns per tick


def result(**parts) -> dict:
    res = {"runs": [{"run_id": "solo-r1", "config_id": "solo", "status": "pass"},
                    {"run_id": "same-r1", "config_id": "same", "status": "pass"}],
           "left_out": [], "verdicts": [], "overhead": [], "boards": [], "stats": [], "deadlines": [], "gates": [],
           "overall": "NO GATES", "units": {}, "configs": {"solo": {"placement": "solo"},
                                                           "same": {"placement": "same-core"}},
           "campaign": {"id": "c", "planned_runs": ["solo-r1", "same-r1"]}}
    return res | parts


def verdict(config: str, metric: str, word: str, pct: float | None, better: str = "lower", **more) -> dict:
    return {"config_id": config, "metric": metric, "verdict": word, "change_pct": pct, "better": better,
            "statistic_label": "p99", "design": "runs", "baseline": "solo", "kind": "latency", **more}


def stats(config: str, metric: str, n: int, unresolved: list[str], **values) -> dict:
    return {"config_id": config, "metric": metric, "n": n, "ns_per_tick": NS, "unresolved": unresolved, **values}


def test_the_largest_change_for_the_worse_leads_over_a_larger_improvement():
    res = result(verdicts=[verdict("solo", "lat", "baseline", None),
                           verdict("same", "lat", "interference", 84.0),
                           verdict("same", "thr", "interference", -300.0, "lower"),   # lower is better: improved
                           verdict("same", "ops", "no-interference", 1.0)])
    v = headline(res)["verdict"]
    assert v["state"] == "interference" and v["metric"] == "lat" and v["anchor"] == "v-lat-same"
    assert v["text"] == "interference: lat p99 +84 % on same-core (vs solo) — 2 of 3 comparisons interference"


def test_a_shares_change_leads_in_points():
    """A stolen share from 3.3 % to 52.2 % is +48.9 points (in % of 3.3 % it read +1,496 %)."""
    res = result(verdicts=[verdict("same", "gap", "interference", 1495.8, stat_unit="share", change=0.489,
                                   statistic_label="stolen time")])
    assert headline(res)["verdict"]["text"] == "interference: gap stolen time +48.9 points on same-core (vs solo)"


def test_no_significant_change_is_no_interference_or_inconclusive_with_what_would_decide_it():
    alone = result(verdicts=[verdict("solo", "lat", "baseline", None)])
    assert headline(alone)["verdict"]["text"] == "no verdict: only the baseline ran (solo), nothing to compare it with"
    clean = result(verdicts=[verdict("same", "lat", "no-interference", 1.0), verdict("x", "lat", "no-interference", 0)])
    assert headline(clean)["verdict"]["text"] == "no interference found in 2 comparisons"
    windows = result(verdicts=[verdict("other", "lat", "no-interference", 1.0, design="paired")])
    assert headline(windows)["verdict"]["text"] == "no interference found in 1 comparison (on- vs off-windows)"
    open_ = result(verdicts=[verdict("other", "lat", "inconclusive", 9.0, design="paired")])
    assert headline(open_)["verdict"]["text"] == "inconclusive: 1 of 1 comparisons undecided (on- vs off-windows)"
    mixed = result(verdicts=[verdict("same", "lat", "inconclusive", 30.0, need_units=8, unit_word="windows"),
                             verdict("x", "lat", "no-interference", 0)])
    assert headline(mixed)["verdict"] | {"counts": None} == {
        "state": "inconclusive", "rows": 2, "counts": None, "metric": None, "config_id": None, "anchor": None,
        "text": "inconclusive: 1 of 2 comparisons undecided (about 8 windows per side would decide them), "
                "no change in 1"}


def test_worst_case_is_the_maximum_and_the_highest_quantile_with_ten_samples_above():
    res = result(units={"lat": "cycles"}, stats=[
        stats("solo", "lat", 5000, ["p999", "p9999"], max=900.0, p99=300.0, p999=800.0),
        stats("same", "lat", 900, ["p99", "p999", "p9999"], max=5000.0, p90=2000.0, p99=4000.0)])
    (w,) = headline(res)["worst"]
    assert (w["stat"], w["value"], w["config_id"]) == ("max", 5000.0, "same")
    # p99 rests on >= 10 samples only in solo; same's larger p99 is too coarse to quote
    assert (w["quantile"], w["quantile_value"], w["quantile_config_id"]) == ("p99", 300.0, "solo")
    assert w["text"] == "lat: max 50 µs (same-core), p99 3 µs (solo)"


def test_a_deadline_met_or_missed_with_the_samples_above_it():
    rows = [stats("solo", "lat", 1000, [], max=900.0, p9999=800.0),
            stats("same", "lat", 1000, [], max=12000.0, p9999=11000.0)]
    deadline = {"metric": "lat", "deadline": 100_000.0, "unit": "ns", "n": 1000}
    missed = result(units={"lat": "cycles"}, stats=rows, deadlines=[
        dict(deadline, config_id="solo", above=0, wcet=900.0, wcet_ns=9000.0),
        dict(deadline, config_id="same", above=3, wcet=12000.0, wcet_ns=120_000.0)])
    (w,) = headline(missed)["worst"]
    assert w["text"] == ("lat: max 120 µs (same-core), p99.99 110 µs; vs deadline 100 µs: missed by 20 µs, "
                         "3 of 2,000 samples above (same 3)")
    assert [state for part, state, *_ in lines(headline(missed)) if part == "worst"] == ["missed"]
    met = result(units={"lat": "cycles"}, stats=rows[:1], deadlines=[
        dict(deadline, config_id="solo", above=0, wcet=900.0, wcet_ns=9000.0)])
    (d,) = headline(met)["worst"][0]["deadlines"]
    assert d["met"] is True and d["text"] == "vs deadline 100 µs: met, 0 of 1,000 samples above"


def test_counts_and_throughputs_keep_their_unit_and_get_no_quantile_or_deadline():
    res = result(units={"ops": "MB/s", "lost": "count"},
                 verdicts=[verdict("same", "ops", "no-interference", 1.0, "higher", kind="throughput"),
                           verdict("same", "lost", "no-interference", 1.0, "lower", kind="loss")],
                 stats=[stats("solo", "ops", 50, [], min=900.0, max=1000.0, p99=990.0),
                        stats("same", "ops", 50, [], min=700.0, max=990.0, p99=980.0),
                        stats("same", "lost", 50, [], min=0.0, max=7.0, p99=6.0)])
    ops, lost = headline(res)["worst"]
    assert (ops["stat"], ops["text"], ops["quantile"], ops["time"]) == ("min", "ops: min 700 MB/s (same-core)", None,
                                                                        False)
    assert lost["text"] == "lost: max 7 count (same-core)"  # a count says it is one (wording.value)


def test_failed_and_never_run_runs_come_first_and_gates_only_where_there_are_gates():
    res = result(runs=[{"run_id": "solo-r1", "config_id": "solo", "status": "fail", "reason": "hung: no XT END"}],
                 overall="NO GATES")
    head = headline(res)
    assert head["runs"]["text"] == "no run passed: 1 of 2 failed, 1 of 2 not run (1 hung)"
    assert head["runs"]["not_passed"] == {"solo-r1": "fail", "same-r1": "not run"}
    assert lines(head)[1] == ("runs", "failed", "runs", head["runs"]["text"] + "; first: solo-r1: hung: no XT END")
    assert head["verdict"]["text"] == "no verdict: no run passed" and head["gates"] is None
    gated = headline(result(overall="FAIL", gates=[{"passed": True}, {"passed": False}]))
    assert gated["runs"]["text"] == "2 of 2 runs passed" and gated["gates"]["text"] == "FAIL: 1 of 2 failed"
    assert lines(gated)[-1] == ("gates", "FAIL", "gates", "FAIL: 1 of 2 failed")


def test_a_missed_deadline_leads_the_worst_cases_and_the_many_metrics_of_an_import_fold():
    metrics = [f"m{i}" for i in range(6)]
    res = result(units=dict.fromkeys(metrics, "cycles"),
                 stats=[stats("solo", m, 100, [], max=100.0 + i) for i, m in enumerate(metrics)],
                 deadlines=[{"metric": "m4", "config_id": "solo", "deadline": 50.0, "unit": "cycles", "n": 100,
                             "above": 1, "wcet": 104.0, "wcet_ns": 1040.0}])
    head = headline(res)
    assert [w["metric"] for w in head["worst"]] == ["m4", "m0", "m1", "m2", "m3", "m5"]
    assert [part for part, *_ in lines(head)] == ["machine", "runs", "verdict"] + ["worst"] * 3 + ["worst-more"] * 3


def test_a_verdict_on_a_machine_that_cannot_measure_says_it_is_not_to_be_relied_on():
    rows = [verdict("same", "lat", "no-interference", 1.0)]
    busy = {"state": "cannot", "text": "cannot measure here: CPU 0 ran other work 50 % of each run"}
    said = headline(result(verdicts=rows, measurability=busy))["verdict"]["text"]
    assert said == ("no interference found in 1 comparison — not to be relied on: this machine cannot measure "
                    "(the machine line)")
    found = headline(result(verdicts=[verdict("same", "lat", "interference", 84.0)], measurability=busy))
    assert found["verdict"]["text"].endswith("on same-core (vs solo) — not to be relied on: this machine cannot "
                                             "measure (the machine line)")
    assert [state for part, state, *_ in lines(headline(result(verdicts=rows, measurability=busy)))
            if part == "verdict"] == ["void"]  # shown plain, not in the colour of a verdict
    for state in ("doubtful", "measurable"):
        text = headline(result(verdicts=rows, measurability={"state": state, "text": "-"}))["verdict"]["text"]
        assert text == "no interference found in 1 comparison"


def test_a_metric_the_machine_cannot_answer_for_voids_its_verdicts_only():
    chase_only = {"state": "cannot", "text": "cannot measure chase here: ...", "cannot_metrics": ["chase"]}
    qsort = headline(result(verdicts=[verdict("same", "qsort", "interference", 99.7),
                                      verdict("same", "chase", "inconclusive", 30.0, need_units=40)],
                            measurability=chase_only))["verdict"]
    assert not qsort["void"] and "not to be relied on" not in qsort["text"]
    chase = headline(result(verdicts=[verdict("same", "chase", "interference", 500.0)], measurability=chase_only))
    assert chase["verdict"]["void"]
    mixed = headline(result(verdicts=[verdict("same", "qsort", "inconclusive", 3.0, need_units=8),
                                      verdict("same", "chase", "inconclusive", 30.0)], measurability=chase_only))
    assert mixed["verdict"]["text"] == ("inconclusive: 2 of 2 comparisons undecided (about 8 runs per side would "
                                        "decide them; not chase: this machine cannot answer for it)")


def test_a_guests_vcpus_stand_together_the_worst_first_in_the_worst_cases_and_the_answer():
    from xtalk.report.answer import answer_rows
    from xtalk.report.headline import worst_part
    metrics = {"lock_acquire_vcpu0": 900.0, "qsort": 5.0, "lock_acquire_vcpu1": 7000.0, "lock_acquire_vcpu2": 100.0}
    res = result(units={m: "cycles" for m in metrics},
                 stats=[stats("same", m, 100, [], max=v) for m, v in metrics.items()],
                 verdicts=[verdict(c, m, "baseline" if c == "solo" else "interference", None if c == "solo" else 5.0)
                           for m in metrics for c in ("solo", "same")])
    worst = [w["metric"] for w in worst_part(res)]
    assert worst == ["lock_acquire_vcpu1", "lock_acquire_vcpu0", "lock_acquire_vcpu2", "qsort"]
    rows = [r["metric"] for r in answer_rows(res, worst)]
    assert list(dict.fromkeys(rows)) == ["lock_acquire_vcpu1", "lock_acquire_vcpu0", "lock_acquire_vcpu2", "qsort"]
