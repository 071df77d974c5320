from xtalk.spec.plan import backend_kinds, plan
from xtalk.spec.load import parse_campaign
from tests.framework.specs import MINIMAL_SPEC


def make(extra: str = "", base: str = MINIMAL_SPEC):
    spec, raw = parse_campaign(base + extra, "spec.toml")
    return plan(spec, raw)


def test_default_matrix_is_solo_same_other_with_cpus():
    runs = make()
    assert [r.run_id for r in runs] == ["solo-r1", "same-core-r1", "other-core-r1"]
    same, other = runs[1], runs[2]
    assert same.measurer.cpus == (0,) and same.stressors[0].cpus == (0,)
    assert other.stressors[0].cpus == (1,)
    assert runs[0].stressors == ()


def test_thesis_table_3_1_matrix_collapses_solo():
    runs = make('[matrix]\nplacement = ["solo", "same-core", "other-core"]\n'
                'start_order = ["measurer-first", "stressor-first"]\n')
    ids = [r.config_id for r in runs]
    assert len(ids) == 5 and ids.count("solo") == 1
    assert "same-core_stressor-first" in ids and "other-core_measurer-first" in ids


def test_ids_are_stable_and_repetitions_interleave():
    text = '[run]\nrepetitions = 2\nwarmup_runs = 1\n[matrix]\nplacement = ["solo", "same-core"]\n'
    first, second = make(text), make(text)
    assert [r.run_id for r in first] == [r.run_id for r in second]
    assert [r.run_id for r in first] == ["solo-w1", "same-core-w1", "solo-r1", "same-core-r1", "solo-r2", "same-core-r2"]
    assert [r.warmup for r in first] == [True, True, False, False, False, False]
    grouped = make(text.replace("[matrix]", 'order = "grouped"\n[matrix]'))
    assert [r.run_id for r in grouped][2:] == ["solo-r1", "solo-r2", "same-core-r1", "same-core-r2"]


def test_dotted_dimension_is_applied_to_the_run_spec():
    runs = make('[matrix]\nplacement = ["solo"]\n"measurer.params.size_kib" = [64, 256]\n')
    assert [r.config_id for r in runs] == ["size_kib-64", "size_kib-256"]
    assert [r.measurer.params["size_kib"] for r in runs] == [64, 256]


def test_timeline_target_starts_later_and_instances_spread():
    text = MINIMAL_SPEC.replace('bench = "cache_thrash"', 'bench = "cache_thrash"\ninstances = 2')
    runs = make('[[timeline]]\nat_s = 2\naction = "start"\ntarget = "thrash"\n', base=text.replace("cpus = [0, 1]", "cpus = [0, 1, 2]"))
    other = next(r for r in runs if r.placement == "other-core")
    assert [g.name for g in other.stressors] == ["thrash", "thrash-2"]
    assert [g.cpus for g in other.stressors] == [(1,), (2,)]
    assert not any(g.starts_at_boot for g in other.stressors)
    assert next(r for r in runs if r.placement == "solo").timeline == ()


def test_host_stressors_keep_their_flag_and_placement():
    base = MINIMAL_SPEC + 'host = true\n[[stressors]]\nname = "vm"\nbench = "cpu_spin"\n'
    same = next(r for r in make(base=base) if r.placement == "same-core")
    assert [(g.name, g.host, g.cpus) for g in same.stressors] == [("thrash", True, (0,)), ("vm", False, (0,))]
    assert same.measurer.host is False


SWEEP = ('[matrix]\nplacement = ["solo", "other-core"]\n'
         '"stressors.thrash.params.size" = ["l1/2", "l2/2", "llc/2", "llc*2"]\n')


def test_size_expressions_make_distinct_ids_and_solo_is_one_baseline():
    runs = make(SWEEP)
    ids = [r.config_id for r in runs]
    assert ids == ["solo", "other-core_size-l1div2", "other-core_size-l2div2", "other-core_size-llcdiv2",
                   "other-core_size-llcx2"]
    assert runs[0].config == {"placement": "solo", "start_order": "measurer-first"}
    assert [r.stressors[0].params["size"] for r in runs[1:]] == ["l1/2", "l2/2", "llc/2", "llc*2"]


def test_solo_is_the_baseline_of_every_size():
    from xtalk.analysis.gates import baseline_of
    configs = {r.config_id: r.config for r in make(SWEEP + 'start_order = ["stressor-first"]\n')}
    assert {c: baseline_of(cfg, configs, "placement", "solo") for c, cfg in configs.items()} == dict.fromkeys(configs,
                                                                                                           "solo")


def test_values_that_slug_alike_keep_distinct_ids():
    runs = make('[matrix]\nplacement = ["solo"]\n"measurer.params.seed" = ["a b", "a-b", "a+b"]\n')
    assert [r.config_id for r in runs] == ["seed-a-b", "seed-a-b-2", "seed-a-b-3"]


def test_instances_as_a_dimension_are_guests_named_after_the_stressor():
    runs = make('[matrix]\nplacement = ["solo", "other-core", "same-core"]\n"stressors.thrash.instances" = [1, 3]\n'
                '[[timeline]]\nat_s = 1\naction = "pause"\ntarget = "thrash"\n')
    assert [r.config_id for r in runs] == ["solo", "other-core_instances-1", "other-core_instances-3",
                                           "same-core_instances-1", "same-core_instances-3"]
    three = runs[2]
    assert [(g.name, g.stressor, g.cpus) for g in three.stressors] == [
        ("thrash", "thrash", (1,)), ("thrash-2", "thrash", (1,)), ("thrash-3", "thrash", (1,))]
    assert [g.cpus for g in runs[4].stressors] == [(0,)] * 3


def test_the_backend_as_a_dimension_names_configurations_and_runs():
    runs = make('[backend.qemu]\nmachine = "pc"\n[matrix]\nplacement = ["solo"]\n"backend.kind" = ["native", "qemu"]\n')
    assert [r.run_id for r in runs] == ["native-r1", "qemu-r1"]
    assert [r.backend for r in runs] == ["native", "qemu"] and backend_kinds(runs) == ["native", "qemu"]
    assert runs[0].spec.backend.options == {} and runs[1].spec.backend.options == {"machine": "pc"}
    runs = make('[matrix]\nplacement = ["solo"]\n"backend.kind" = ["native", "qemu"]\n'
                '"backend.qemu.machine" = ["microvm", "pc"]\n')  # native has no machine: one native configuration
    assert [r.run_id for r in runs] == ["native-r1", "qemu_machine-microvm-r1", "qemu_machine-pc-r1"]
    assert "backend.qemu.machine" not in runs[0].config and runs[2].spec.backend.options == {"machine": "pc"}


def test_a_params_table_named_after_a_bench_is_only_that_benchs():
    runs = make('[measurer.params.timer_latency]\nsustain = false\n[matrix]\nplacement = ["solo"]\n'
                '"measurer.bench" = ["qsort", "timer_latency"]\n')
    assert [r.measurer.params for r in runs] == [{}, {"sustain": False}]
    runs = make('[measurer.params]\nseed = 3\n[measurer.params.qsort]\nseed = 4\nsize_kib = 64\n'
                '[matrix]\nplacement = ["solo"]\n')
    assert runs[0].measurer.params == {"seed": 4, "size_kib": 64}


TWO_NEIGHBOURS = MINIMAL_SPEC + '[[stressors]]\nname = "spin"\nbench = "cpu_spin"\n'


def test_the_stressor_dimension_runs_one_named_stressor_per_configuration():
    runs = make('[matrix]\nplacement = ["solo", "other-core"]\nstressor = ["thrash", "spin"]\n', TWO_NEIGHBOURS)
    by_id = {r.config_id: r for r in runs}
    assert set(by_id) == {"solo", "other-core_stressor-thrash", "other-core_stressor-spin"}
    assert [g.bench for g in by_id["other-core_stressor-thrash"].stressors] == ["cache_thrash"]
    assert [g.bench for g in by_id["other-core_stressor-spin"].stressors] == ["cpu_spin"]
    assert by_id["solo"].stressors == () and "stressor" not in by_id["solo"].config


def test_a_stressor_dimension_value_that_names_no_stressor_is_refused():
    import pytest
    from xtalk.errors import SpecError
    with pytest.raises(SpecError, match="matrix.stressor.*no stressor named 'spinn'"):
        make('[matrix]\nstressor = ["thrash", "spinn"]\n', TWO_NEIGHBOURS)
