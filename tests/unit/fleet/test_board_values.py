"""What a board sets in the spec: for a backend's reach, that backend's board_values with
the fleet kind's options for it; nothing for reach = worker."""
from __future__ import annotations

from xtalk.fleet.boards import board_values
from xtalk.fleet.model import parse_fleet

FLEET = """coordinator = "127.0.0.1:20408"

[[kinds]]
name = "zcu102"
places = ["zcu-a"]
reach = "xen-dom0"
ssh_identity = "/keys/lab"
xen = { scheduler = "credit2", memory_mib = 128 }

[[kinds]]
name = "rpi4"
places = ["pi4-a"]
reach = "worker"
"""


def test_a_xen_dom0_board_sets_the_ssh_executor_and_the_kinds_options_the_spec_lacks():
    xen, worker = parse_fleet(FLEET, "fleet.toml").kinds
    raw = {"backend": {"kind": "xen", "memory_mib": 64}}
    assert board_values(xen, raw, "root@10.0.0.2", 2222) == {
        "backend.scheduler": "credit2", "backend.executor": "ssh", "backend.ssh_identity": "/keys/lab",
        "backend.ssh_host": "root@10.0.0.2", "backend.ssh_port": 2222}
    assert board_values(xen, {}, "board") == {
        "backend.scheduler": "credit2", "backend.memory_mib": 128, "backend.executor": "ssh",
        "backend.ssh_identity": "/keys/lab", "backend.ssh_host": "board"}
    assert board_values(worker, raw, "pi@10.0.0.3", 22) == {}
