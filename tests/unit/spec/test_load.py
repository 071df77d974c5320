import json

import jsonschema
import pytest

from tests.framework.repo import ROOT
from tests.framework.specs import MINIMAL_SPEC
from xtalk.plugins import backend_kinds, check_backend_options
from xtalk.errors import SpecError
from xtalk.spec.load import parse_campaign
from xtalk.spec.load import Checks
from xtalk.spec.locate import locate_line
from xtalk.spec.model import Campaign


def problems(text: str) -> list:
    with pytest.raises(SpecError) as info:
        parse_campaign(text, "spec.toml", check_backend_options)
    return info.value.problems


def test_minimal_spec_loads_with_defaults():
    spec, raw = parse_campaign(MINIMAL_SPEC, "spec.toml", check_backend_options)
    assert spec.name == "t" and spec.backend.kind == "native"
    assert spec.run.repetitions == 1 and spec.stressors[0].bench == "cache_thrash"


def test_three_mistakes_are_all_reported_with_paths_and_lines():
    text = MINIMAL_SPEC.replace('iterations = 5', 'iterations = -5\ncolour = "red"') + """
[[timeline]]
at_s = 1
action = "start"
target = "nobody"
"""
    found = {p.path: p for p in problems(text)}
    assert set(found) == {"measurer.iterations", "measurer.colour", "timeline[0].target"}
    lines = text.splitlines()
    assert "iterations = -5" in lines[found["measurer.iterations"].line - 1]
    assert "colour" in lines[found["measurer.colour"].line - 1]
    assert "target" in lines[found["timeline[0].target"].line - 1]
    assert found["measurer.colour"].message == "unknown key"


def test_toml_syntax_error_names_the_line():
    (problem,) = problems('name = "t"\n[measurer\nbench = "x"\n')
    assert problem.line == 2


def test_matrix_dimension_paths_are_checked():
    text = MINIMAL_SPEC + '[matrix]\n"measurer.params.size_kib" = [64]\n"measurer.iterations" = [-1]\n"nowhere.x" = [1]\n'
    msgs = {p.path: p.message for p in problems(text)}
    assert "matrix.measurer.iterations" in msgs and "greater than or equal to 0" in msgs["matrix.measurer.iterations"]
    assert "matrix.nowhere.x" in msgs
    assert "matrix.measurer.params.size_kib" not in msgs


def test_placement_needs_cpus_and_stressors():
    text = MINIMAL_SPEC.replace("cpus = [0, 1]", "cpus = [0]") + '[matrix]\nplacement = ["other-core"]\n'
    assert any("two entries in cpus" in p.message for p in problems(text))
    no_stress = 'name = "t"\n[measurer]\nbench = "qsort"\n[matrix]\nplacement = ["same-core"]\n'
    assert any("at least one stressor" in p.message for p in problems(no_stress))


def test_unknown_backend_and_option_are_reported():
    msgs = {p.path: p.message for p in problems(MINIMAL_SPEC + '[backend]\nkind = "hyperv"\n')}
    assert "unknown backend 'hyperv'" in msgs["backend.kind"]
    msgs = {p.path: p.message for p in problems(MINIMAL_SPEC + '[backend]\nkind = "native"\nturbo = true\n')}
    assert msgs["backend.turbo"] == "unknown option for the native backend"


def test_gate_baseline_must_exist_in_matrix():
    text = MINIMAL_SPEC + '[[gates]]\nmetric = "qsort"\nmax_increase_pct = 5\nbaseline = "placement=other-core"\n'
    text += '[matrix]\nplacement = ["solo", "same-core"]\n'
    assert [p.path for p in problems(text)] == ["gates[0].baseline"]


def test_locate_line_follows_tables_arrays_and_quoted_keys():
    text = '[a]\nx = 1\n[[s]]\nn = 1\n[[s]]\nn = 2\n[m]\n"p.q" = [1]\n'
    assert locate_line(text, ("a", "x")) == 2
    assert locate_line(text, ("s", 1, "n")) == 6
    assert locate_line(text, ("m", "p.q")) == 8
    assert locate_line(text, ("s", 1, "missing")) == 5


def test_exported_schema_accepts_examples_and_rejects_a_typo():
    schema = Campaign.model_json_schema()
    import tomllib
    for spec in sorted((ROOT / "experiments").glob("*.toml")):
        jsonschema.validate(tomllib.loads(spec.read_text()), schema)
    bad = tomllib.loads(MINIMAL_SPEC)
    bad["measurer"]["iteratons"] = 3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    json.dumps(schema)


def test_overrides_apply_and_bad_ones_are_reported():
    spec, raw = parse_campaign(MINIMAL_SPEC, "spec.toml", check_backend_options,
                               overrides=["run.repetitions=4", "measurer.params.size_kib=64", "name=other"])
    assert spec.run.repetitions == 4 and spec.measurer.params == {"size_kib": 64} and spec.name == "other"
    with pytest.raises(SpecError) as info:
        parse_campaign(MINIMAL_SPEC, "spec.toml", check_backend_options,
                       overrides=["run.repetitions=0", "nowhere.x=1", "novalue"])
    msgs = {p.path: p.message for p in info.value.problems}
    assert "(value from --set)" in msgs["run.repetitions"]
    assert "--set nowhere.x" in msgs and "--set novalue" in msgs


@pytest.mark.parametrize("value", ['"3"', "true", "inf", "nan", "-inf", "1e300"])
def test_numbers_are_toml_numbers_finite_and_sane(value):
    found = problems(MINIMAL_SPEC + f"[run]\nduration_s = {value}\n")
    assert [p.path for p in found] == ["run.duration_s"] and found[0].line == 11


def test_an_unknown_key_says_what_was_meant():
    text = MINIMAL_SPEC.replace("iterations = 5", "iteratons = 5").replace('name = "thrash"',
                                                                           'name = "thrash"\ninstnces = 2')
    msgs = {p.path: p.message for p in problems(text)}
    assert msgs == {"measurer.iteratons": "unknown key (did you mean iterations?)",
                    "stressors[0].instnces": "unknown key (did you mean instances?)"}


def test_timeline_events_come_before_the_end_of_every_run():
    text = MINIMAL_SPEC + '[run]\nduration_s = 4\n[[timeline]]\nat_s = 3\naction = "pause"\ntarget = "thrash"\n'
    assert parse_campaign(text, "spec.toml")[0].timeline[0].at_s == 3
    msgs = {p.path: p.message for p in problems(text + '[matrix]\n"run.duration_s" = [4, 2]\n')}
    assert msgs == {"matrix.run.duration_s": "value 2: timeline[0].at_s: 3 s is not before the end of the run "
                                             "(run.duration_s = 2 s): the event never happens"}


def test_checks_see_every_configuration_and_a_matrix_value_is_blamed_for_its_own():
    seen, whole = [], []

    def config(raw):
        seen.append(raw["measurer"]["bench"])
        return [(("measurer", "bench"), "not here")] if raw["measurer"]["bench"] == "bad" else []

    def campaign(raw):
        whole.append(raw)
        return []

    text = MINIMAL_SPEC + '[matrix]\n"measurer.bench" = ["qsort", "bad"]\n'
    with pytest.raises(SpecError) as info:
        parse_campaign(text, "spec.toml", checks=Checks(configuration=(config,), campaign=(campaign,)))
    assert [str(p) for p in info.value.problems] == [
        'matrix.measurer.bench (line 11): value "bad": measurer.bench: not here']
    assert seen == ["qsort", "qsort", "bad"] and len(whole) == 1 and "matrix" in whole[0]


def test_instances_as_a_dimension_are_positive_and_their_names_unique():
    sweep = MINIMAL_SPEC + '[matrix]\n"stressors.thrash.instances" = [1, 0, 3]\n'
    assert [(p.path, p.line, p.message) for p in problems(sweep)] == [
        ("matrix.stressors.thrash.instances", 11,
         "value 0: stressors[0].instances: Input should be greater than or equal to 1")]
    clash = MINIMAL_SPEC + '[[stressors]]\nname = "thrash-3"\nbench = "cpu_spin"\n' \
        '[matrix]\n"stressors.thrash.instances" = [1, 3]\n'
    assert [(p.path, p.message) for p in problems(clash)] == [
        ("matrix.stressors.thrash.instances", "value 3: stressors: stressor names must be unique, with their "
                                              "instances' (name-2, ...): thrash-3")]


NULL_SCHEDULER = """
name = "n"
cpus = [0, 1, 2]
[backend]
kind = "xen"
scheduler = "null"
[measurer]
bench = "qsort"
[[stressors]]
name = "copy"
bench = "memcpy"
[matrix]
placement = ["solo", "other-core"]
"stressors.copy.instances" = [1, 2, 3]
"""


def test_guests_that_cannot_share_a_cpu_need_one_each():
    from xtalk.running.preflight import shared_cpu_problems
    checks = Checks(campaign=(shared_cpu_problems,))
    with pytest.raises(SpecError) as info:
        parse_campaign(NULL_SCHEDULER, "n.toml", check_backend_options, checks=checks)
    assert [str(p) for p in info.value.problems] == [
        "matrix.stressors.copy.instances (line 14): other-core_instances-3: the null scheduler runs one vCPU per "
        "pCPU (a second one on a pCPU never runs): 2 guests on CPU 1 (give each guest its own CPU in cpus, "
        "or fewer instances)"]
    fits = NULL_SCHEDULER.replace("cpus = [0, 1, 2]", "cpus = [0, 1, 2, 3]")
    assert parse_campaign(fits, "n.toml", check_backend_options, checks=checks)
    shared = NULL_SCHEDULER.replace('scheduler = "null"', 'scheduler = "credit2"')
    assert parse_campaign(shared, "n.toml", check_backend_options, checks=checks)  # a scheduler shares a pCPU
    same = NULL_SCHEDULER.replace('"other-core"', '"same-core"').replace("[1, 2, 3]", "[1]")
    with pytest.raises(SpecError) as info:
        parse_campaign(same, "n.toml", check_backend_options, checks=checks)
    assert [(p.path, p.line) for p in info.value.problems] == [("matrix.placement", 13)]


BACKENDS = MINIMAL_SPEC + """[backend]
kind = "native"
[backend.qemu]
machine = "pc"
memory_mib = 128
[matrix]
"backend.kind" = ["native", "qemu"]
"""


def test_a_backend_table_is_the_options_of_that_backend_only():
    spec, raw = parse_campaign(BACKENDS, "spec.toml", check_backend_options)
    assert spec.backend.kind == "native" and spec.backend.options == {}
    qemu, _ = parse_campaign(BACKENDS, "spec.toml", check_backend_options, overrides=["backend.kind=qemu"])
    assert qemu.backend.options == {"machine": "pc", "memory_mib": 128}
    shared = BACKENDS.replace('kind = "native"\n', 'kind = "native"\nimage = "probe"\n')
    (p,) = problems(shared)  # a shared option goes to every backend: native takes none
    assert p.path == "backend.image" and p.message == "unknown option for the native backend"
    assert qemu.backend.kind == "qemu" and {"native", "qemu", "xen"} <= set(backend_kinds())  # the registry's


def test_a_backend_table_is_checked_where_it_is_and_only_for_a_backend_that_runs():
    found = {p.path: p for p in problems(BACKENDS.replace("memory_mib = 128", "memory_mib = 1"))}
    assert list(found) == ["matrix.backend.kind"] and "backend.qemu.memory_mib" in found["matrix.backend.kind"].message
    unused = BACKENDS.replace('"backend.kind" = ["native", "qemu"]', '"run.duration_s" = [1, 2]')
    (p,) = problems(unused)
    assert p.path == "backend.qemu" and unused.splitlines()[p.line - 1] == "[backend.qemu]"
    assert "which this campaign does not run (it runs native)" in p.message
    (p,) = problems(MINIMAL_SPEC + '[backend]\nqemu = 3\n')
    assert p.path == "backend.qemu" and "table" in p.message


def test_a_pair_of_matrix_values_is_checked_as_the_configuration_it_makes():
    def config(raw):
        both = raw["measurer"]["bench"] == "posix_only" and raw["backend"]["kind"] == "qemu"
        return [(("measurer", "bench"), "not on qemu")] if both else []

    text = BACKENDS + '"measurer.bench" = ["qsort", "posix_only"]\n'
    with pytest.raises(SpecError) as info:
        parse_campaign(text, "spec.toml", checks=Checks(configuration=(config,)))
    assert [str(p) for p in info.value.problems] == [
        'matrix.measurer.bench (line 17): value "posix_only" with backend.kind = "qemu": measurer.bench: not on qemu']


def test_images_are_relative_to_the_spec_directory_also_in_the_matrix(tmp_path):
    text = MINIMAL_SPEC.replace('bench = "qsort"', 'bench = "qsort"\nimage = "k/zephyr.elf"\ninitrd = "/abs.cpio"') + \
        '[matrix]\n"measurer.image" = ["a.elf", "/b.elf"]\n"stressors.thrash.initrd" = ["../c.cpio"]\n'
    _, raw = parse_campaign(text, "spec.toml", check_backend_options, base=tmp_path)
    assert raw["measurer"]["image"] == str(tmp_path / "k" / "zephyr.elf") and raw["measurer"]["initrd"] == "/abs.cpio"
    assert raw["matrix"]["measurer.image"] == [str(tmp_path / "a.elf"), "/b.elf"]
    assert raw["matrix"]["stressors.thrash.initrd"] == [str(tmp_path.parent / "c.cpio")]


@pytest.mark.parametrize("change, path, suggested", [
    ('[matrix]\nplacement = ["othercore"]\n', "matrix", "other-core"),
    ('[matrix]\nstart_order = ["stressor_first"]\n', "matrix", "stressor-first"),
    ('[run]\norder = "interleave"\n', "run.order", "interleaved"),
    ('[run]\nstressor_failure = "degrad"\n', "run.stressor_failure", "degrade"),
    ('[backend]\nkind = "natve"\n', "backend.kind", "native"),
    ('[[timeline]]\nat_s = 1\naction = "strat"\ntarget = "thrash"\n', "timeline[0].action", "start"),
    ('[[gates]]\nmetric = "x"\nstat = "medain"\nmax_ns = 1\n', "gates[0].stat", "median"),
])
def test_an_enumerated_value_gets_its_choices_and_the_closest(change, path, suggested):
    msgs = {p.path: p.message for p in problems(MINIMAL_SPEC + change)}
    assert f"(did you mean {suggested}?)" in msgs[path], msgs


def test_a_misspelled_literal_names_every_choice():
    msgs = {p.path: p.message for p in problems(MINIMAL_SPEC + '[run]\norder = "zigzag"\n')}
    assert msgs["run.order"] == '"zigzag" is not one of interleaved, grouped'

