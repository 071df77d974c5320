"""A fleet with one xen-dom0 board: the arm64 Xen lab (tests/framework/xen_lab.py's lab
fixture) exported as a labgrid place (its dom0's ssh as a NetworkService, no power, no
serial console) on the loopback labgrid lab of tests/framework/fleet_lab.py. The xen
backend here drives the board's dom0 over ssh; the kind's xen options, a table among
them (xl_extra), travel to the worker as structured data. Small: two runs of 2 s (about a minute in the TCG lab).
"""
from __future__ import annotations

import json

import pytest

from tests.framework.cli import campaign_dir, xtalk
from tests.framework.xen_lab import LAB_GROUP, campaign, xtalk_domains

pytestmark = [pytest.mark.full, pytest.mark.xen, pytest.mark.slow, LAB_GROUP["arm64"]]


@pytest.fixture
def xen_fleet(arm64_lab, tmp_path_factory):
    """(the fleet file, dom0's ssh port): place xen-a is the lab's dom0, with its key and host key
    (after the lab's health check: a lab booted again has another ssh port)."""
    from tests.framework.fleet_lab import FleetLab
    from xtalk.lab.vm import current
    xen = current(arm64_lab)
    port, img = xen.state["ssh_port"], xen.image.dir
    lab = FleetLab(tmp_path_factory.mktemp("lab"), boards=0, places={"xen-a": {"NetworkService": {
        "address": "127.0.0.1", "port": port, "username": "root"}}})
    key = (img / "known_hosts").read_text().split()[1:3]  # pinned as xtalk-lab-ARCH: here as the place's address
    (lab.root / "known_hosts").write_text(f"[127.0.0.1]:{port} {' '.join(key)}\n")
    fleet = lab.root / "fleet.toml"
    fleet.write_text(f'coordinator = "{lab.address}"\nreserve_timeout_s = 20\n\n[[kinds]]\nname = "xen-lab"\n'
                     f'places = ["xen-a"]\nreach = "xen-dom0"\nssh_identity = "{img / "id_ed25519"}"\n'
                     'ssh_known_hosts = "known_hosts"\nxen = { xl_extra = { tsc_mode = "native" } }\n')
    yield fleet, port
    assert lab.client("who").strip().splitlines()[1:] == [], "xtalk left the place acquired"
    lab.close()


def test_a_xen_dom0_board_runs_the_campaign_over_ssh(arm64_lab, xen_fleet, tmp_path):
    fleet, port = xen_fleet
    spec, out = campaign(tmp_path, "arm64", placements='["solo", "same-core"]')
    spec.write_text(spec.read_text().replace('executor = "lab"\n', ""))  # the fleet says how dom0 is reached
    res = xtalk("run", spec, "--fleet", fleet, "--out", out, "--json", timeout=600)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["passed"] == 2
    for path in sorted(campaign_dir(out).glob("runs/*/meta.json")):
        meta = json.loads(path.read_text())
        assert meta["status"] == "pass", meta["reason"]
        assert meta["fleet"]["place"] == "xen-a" and meta["fleet"]["reach"] == "xen-dom0"
        assert meta["fleet"]["board"]["hostname"], meta["fleet"]  # the worker's host: this machine
        bm = meta["backend_metadata"]
        assert bm["executor"]["kind"] == "ssh" and bm["executor"]["port"] == port, bm["executor"]
        assert bm["xen_version"].startswith("4.17")
        assert 'tsc_mode = "native"' in bm["domains"]["measurer"]["config"]
        assert meta["serial_console"] == {"log": None, "why": "place xen-a has no NetworkSerialPort resource"}
    assert xtalk_domains(arm64_lab) == []
