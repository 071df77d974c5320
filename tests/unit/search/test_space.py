"""The search space (search/space.py): ranges from the catalogue's `tune` declarations or
--tune overrides, in bytes for sizes; candidates by channel or by name; bad input named."""
from __future__ import annotations

import optuna
import pytest

from xtalk.errors import SpecError
from xtalk.search import space
from xtalk.spec import catalogue

CACHES = {"l1": 32 << 10, "l2": 1 << 20, "llc": 16 << 20}


def param(bench: str, name: str):
    return catalogue.load().bench(bench, ("probe", "steal")).params[name]


def test_a_catalogue_range_in_cache_units_is_resolved_to_bytes():
    d = space.dim_of("cache_thrash", param("cache_thrash", "size"), "[l1/2,llc*4]", CACHES, "x")
    assert (d.kind, d.low, d.high) == ("size", 16 << 10, 64 << 20)
    assert d.default == pytest.approx(1.5 * (16 << 20))  # llc*1.5, the bench's default


def test_overrides_give_a_range_choices_or_a_fixed_value():
    assert space.dim_of("membus", param("membus", "line"), "64..4k", CACHES, "x").high == 4096
    assert space.dim_of("membus", param("membus", "mode"), "read|write", CACHES, "x").choices == ("read", "write")
    numbers = space.dim_of("steal", param("steal", "steal_us"), "100|200|300", CACHES, "x")
    assert numbers.choices == (100.0, 200.0, 300.0)  # numbers, as the spec check wants them
    assert space.dim_of("cache_thrash", param("cache_thrash", "size"), "l1|2m", CACHES, "x").choices == (
        32 << 10, 2 << 20)
    with pytest.raises(SpecError, match="--tune steal.steal_us"):
        space.dim_of("steal", param("steal", "steal_us"), "100|abc", CACHES, "--tune steal.steal_us")
    fixed = space.dim_of("steal", param("steal", "steal_us"), "0", CACHES, "x")
    assert (fixed.kind, fixed.value) == ("fixed", 0.0)


def test_a_default_given_as_a_size_text_starts_at_its_number_among_numeric_choices():
    """memlat's default is membus line=4k: with --tune membus.line='64|512|4096' its first
    trial is line 4096 (it was the first choice, 64: "4k" is no member of (64, 512, 4096))."""
    line = space.dim_of("membus", param("membus", "line"), "64|512|4096", CACHES, "x")
    assert line.start("4k", CACHES) == 4096 and line.start("512", CACHES) == 512
    assert line.start("2k", CACHES) == 64  # no such choice: the first
    mode = space.dim_of("membus", param("membus", "mode"), "read|write", CACHES, "x")
    assert mode.start("write", CACHES) == "write"


@pytest.mark.parametrize("text, words", [("10..1", "low end is above"), ("abc", "not a number"),
                                         ("l9..llc", "not a size")])
def test_a_bad_range_names_the_option(text, words):
    kind = "steal_us" if text != "l9..llc" else None
    bench, name = ("steal", "steal_us") if kind else ("cache_thrash", "size")
    with pytest.raises(SpecError) as err:
        space.dim_of(bench, param(bench, name), text, CACHES, f"--tune {bench}.{name}")
    assert f"--tune {bench}.{name}" in str(err.value) and words in str(err.value)


def test_candidates_are_the_stressors_that_load_a_channel():
    cands = space.candidates("native", {}, CACHES, [], ["llc"], [])
    assert {c.bench for c in cands} == {"cache_thrash", "memcpy"}
    assert all("llc" in c.channels for c in cands)


def test_a_host_stressor_is_a_candidate_only_when_named():
    assert "steal" not in {c.bench for c in space.candidates("native", {}, CACHES, [], ["cpu"], [])}
    (steal,) = space.candidates("native", {}, CACHES, ["steal"], [], ["steal.period_us=4000..8000"])
    assert {d.name: (d.low, d.high) for d in steal.dims}["period_us"] == (4000, 8000)


def test_a_tune_for_no_candidate_parameter_is_refused():
    with pytest.raises(SpecError, match="cpu_spin.nope"):
        space.candidates("native", {}, CACHES, ["cpu_spin"], [], ["cpu_spin.nope=1..2"])
    with pytest.raises(SpecError, match="BENCH.PARAM"):
        space.parse_tunes(["steal_us=1..2"])


def test_a_trial_gets_a_neighbour_within_the_ranges():
    cands = space.candidates("native", {}, CACHES, ["cache_thrash", "membus"], [], [])
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.RandomSampler(seed=1))
    seen = set()
    for _ in range(20):
        trial = study.ask()
        n = space.suggest(trial, cands, max_instances=3)
        seen.add(n["bench"])
        assert 1 <= n["instances"] <= 3 and not n["host"]
        size = n["params"]["size"]
        assert size % space.LINE == 0
        if n["bench"] == "membus":
            assert 16 << 20 <= size <= 128 << 20 and n["params"]["mode"] in ("read", "write")
        else:
            assert 16 << 10 <= size <= 64 << 20
        study.tell(trial, 0.0)
    assert seen == {"cache_thrash", "membus"}


def test_in_a_probe_guest_the_sizes_are_cut_to_what_it_can_allocate():
    big = {"l1": 32 << 10, "l2": 1 << 20, "llc": 512 << 20}
    sizes = {c.bench: next(d for d in c.dims if d.name == "size")
             for c in space.candidates("qemu", {}, big, ["memcpy", "membus"], [], [])}
    assert sizes["membus"].high == space.PROBE_BUFFERS_MAX and sizes["membus"].low == 512 << 20
    assert sizes["memcpy"].high == space.PROBE_BUFFERS_MAX // 2  # a source and a destination of that size
    (native,) = space.candidates("native", {}, big, ["membus"], [], [])
    assert native.dims[0].high == 8 * (512 << 20)  # host processes: the catalogue's llc*8
