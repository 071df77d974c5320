"""campaign.make_backends: the backend of each run, made before any run starts."""
import shutil

import pytest

from tests.framework.specs import MINIMAL_SPEC
from xtalk.running.campaign import make_backends
from xtalk.host.metadata import host_facts
from xtalk.spec.plan import plan
from xtalk.spec.load import parse_campaign


@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="qemu-system-x86_64 is not installed")
def test_one_backend_per_kind_and_per_options_a_matrix_gives():
    text = MINIMAL_SPEC + ('[matrix]\nplacement = ["solo"]\n"backend.kind" = ["native", "qemu"]\n'
                           '"backend.qemu.machine" = ["microvm", "pc"]\n')
    runs = plan(*parse_campaign(text, "spec.toml"))
    backends = make_backends(runs, host_facts())
    assert sorted(backends) == sorted(r.run_id for r in runs) and len(runs) == 3
    by_kind = {r.run_id: (r.backend, backends[r.run_id]) for r in runs}
    assert {b.name for _, b in by_kind.values()} == {"native", "qemu"}
    machines = {b.opts.machine for kind, b in by_kind.values() if kind == "qemu"}
    assert machines == {"microvm", "pc"}  # each run's own options, not the first run's
