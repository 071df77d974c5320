"""spec/limits.py and the loader on specs it used to crash or hang on: each is a problem
naming its field and line (exit 2), found from the spec's numbers before any expansion."""
import pytest

from tests.framework.cli import write_spec, xtalk
from tests.framework.specs import MINIMAL_SPEC
from xtalk.plugins import check_backend_options
from xtalk.errors import SpecError
from xtalk.fleet.model import parse_fleet
from xtalk.running.preflight import spec_checks
from xtalk.spec.load import parse_campaign


def problems(text: str) -> dict:
    with pytest.raises(SpecError) as info:
        parse_campaign(text, "spec.toml", check_backend_options, checks=spec_checks())
    assert all(p.line for p in info.value.problems), info.value
    return {p.path: p for p in info.value.problems}


def test_paired_nanosecond_windows_are_refused_by_the_cli_at_once(tmp_path):
    spec = write_spec(tmp_path, MINIMAL_SPEC + "[paired]\noff_s = 1e-9\non_s = 1e-9\n")
    for args in (["spec", "check", spec], ["run", "--dry-run", spec]):
        done = xtalk(*args, timeout=60)  # before the limits: 6 GB and no end
        assert done.returncode == 2, done.stderr
        assert "paired.off_s (line 11)" in done.stderr and "10,000,000,000 windows" in done.stderr
        assert "the 10,000 a run may have" in done.stderr


def test_a_run_of_1e7_seconds_with_1_second_windows_is_refused():
    found = problems(MINIMAL_SPEC + "[run]\nduration_s = 1e7\n[paired]\n")
    assert "10,000,000 windows" in found["run.duration_s"].message


def test_a_matrix_of_10000_values_is_refused_naming_the_dimension_and_the_limit():
    sizes = ", ".join(str(n) for n in range(1, 10_001))
    found = problems(MINIMAL_SPEC + f'[matrix]\n"measurer.params.size_kib" = [{sizes}]\n')
    problem = found["matrix.measurer.params.size_kib"]
    assert problem.line == 11 and "30,000 configurations" in problem.message and "2,000" in problem.message


def test_warmup_runs_count_towards_the_runs():
    found = problems(MINIMAL_SPEC + "[run]\nwarmup_runs = 100000000\n")
    assert "300,000,003 runs" in found["run.warmup_runs"].message


SPEC_TAIL = MINIMAL_SPEC.split("[measurer]")[1]


@pytest.mark.parametrize("text, path, line", [
    ("", "name", 1),
    ('name = "t"\n', "measurer", 1),
    ('name = "t"\nmeasurer = 5\n', "measurer", 2),
    (MINIMAL_SPEC.replace('name = "thrash"', "name = []"), "stressors[0].name", 8),
    (MINIMAL_SPEC.replace("iterations = 5", "params." + ".".join(["a"] * 5000) + " = 1"),
     "measurer.params.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a...", 6),
    (MINIMAL_SPEC.replace("iterations = 5", "params = " + "{a = " * 5000 + "1" + "}" * 5000), "measurer.params", 6),
    ('name = "t"\nstressors = 1e300\n[measurer]\nbench = "qsort"\n[matrix]\n"stressors.copy.params.size" = ["1m"]\n',
     "stressors", 2),
])
def test_specs_the_loader_crashed_on_are_problems_with_their_line(text, path, line):
    found = problems(text)
    assert found[path].line == line, found


def test_a_mistyped_fleet_file_is_problems_with_lines():
    with pytest.raises(SpecError) as info:
        parse_fleet('coordinator = "h:1"\n[[kinds]]\nname = "x"\nreach = []\nplaces = 5\n', "f.toml")
    found = {p.path: p.line for p in info.value.problems}
    assert found == {"kinds[0].reach": 4, "kinds[0].places": 5}


def test_thousands_of_unknown_keys_are_checked_in_work_linear_in_the_spec(monkeypatch):
    """Each problem's line was found by a scan of the whole text, and each unknown key got
    a "did you mean" from every check of its table: 40,000 keys took minutes. Counted, not
    timed: the key scanner's calls and the suggestions made, for 400 and 4,000 keys."""
    from xtalk.spec import load, locate
    counts = {}

    def counting(name, real):
        def wrapper(*args):
            counts[name] = counts.get(name, 0) + 1
            return real(*args)
        monkeypatch.setattr(locate if name == "split_key" else load, name, wrapper)
    counting("split_key", locate.split_key)
    counting("did_you_mean", load.did_you_mean)
    seen = {}
    for keys in (400, 4000):
        counts.clear()
        text = "".join(f"unknown{i} = {i}\n" for i in range(keys)) + MINIMAL_SPEC
        found = problems(text)
        assert found["unknown7"].line == 8 and found[f"unknown{keys - 1}"].line == keys
        assert found["unknown7"].message.startswith("unknown key")
        seen[keys] = dict(counts)
    assert seen[4000]["split_key"] <= 11 * seen[400]["split_key"], seen  # lines scanned once: ~linear
    assert seen[4000]["did_you_mean"] == seen[400]["did_you_mean"], seen  # at most SUGGESTED_AT_MOST a check
