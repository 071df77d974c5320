"""The job a fleet worker reads (fleet/worker.py's parse_job): a well-formed one as run_job
takes it; one of the wrong shape, or whose ids are not one name of the store, refused with
its field named (issue 58: `"as": {"run_id": "../../x"}` put a run outside the worker's
temporary directory; a malformed job ended as an unexpected error)."""
import json

import pytest

from xtalk.errors import UsageError
from xtalk.fleet.worker import parse_job

GOOD = {"spec": 'name = "x"', "overrides": ["run.duration_s=1"], "values": {"backend.options": {"a": 1}},
        "run_id": "solo-r1", "attempt": 1,
        "as": {"run_id": "solo-r1", "config_id": "solo", "config": {"placement": "solo"}}}


def test_a_good_job_is_read_whole():
    assert parse_job(json.dumps(GOOD)) == GOOD


def test_keys_a_later_caller_adds_are_ignored():
    assert parse_job(json.dumps(dict(GOOD, trace=True))) == GOOD


def changed(path, value):
    job = json.loads(json.dumps(GOOD))
    *parents, last = path
    target = job
    for key in parents:
        target = target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return json.dumps(job)


@pytest.mark.parametrize("path, value, field", [
    (("as", "run_id"), "../../x", "as.run_id"),
    (("as", "run_id"), "a/b", "as.run_id"),
    (("as", "run_id"), "..", "as.run_id"),
    (("as", "config_id"), "", "as.config_id"),
    (("run_id",), ".hidden", "run_id"),
    (("attempt",), 0, "attempt"),
    (("attempt",), "1", "attempt"),
    (("attempt",), True, "attempt"),
    (("overrides",), "run.duration_s=1", "overrides"),
    (("values",), [], "values"),
    (("spec",), KeyError, "spec"),
    (("as",), KeyError, "as"),
])
def test_a_job_of_the_wrong_shape_is_refused_naming_its_field(path, value, field):
    with pytest.raises(UsageError, match=rf"no valid job on stdin \({field}: "):
        parse_job(changed(path, value))


@pytest.mark.parametrize("line", ["", "{", "[1, 2]", "null"])
def test_no_json_object_is_refused(line):
    with pytest.raises(UsageError, match="no valid job on stdin"):
        parse_job(line)


def test_a_line_that_does_not_end_is_refused_at_the_limit():
    """`xtalk worker < /dev/zero` once read until memory ran out."""
    import io

    from xtalk.fleet.worker import JOB_LIMIT, read_job
    assert read_job(io.StringIO(json.dumps(GOOD) + "\nmore")) == GOOD
    with pytest.raises(UsageError, match="a line longer than 4 MiB"):
        read_job(io.StringIO("\0" * (JOB_LIMIT + 5)))
