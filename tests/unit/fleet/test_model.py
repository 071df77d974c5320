"""The fleet file: every problem at once, each naming its field and line."""
from __future__ import annotations

import pytest

from xtalk.errors import SpecError
from xtalk.fleet.model import load_fleet, parse_fleet

GOOD = """
coordinator = "127.0.0.1:20408"
mode = "per-board"

[[kinds]]
name = "rpi4"
places = ["pi4-a", "pi4-b"]
reach = "worker"
ssh_identity = "keys/lab"

[[kinds]]
name = "zcu102"
tags = { board = "zcu102" }
reach = "xen-dom0"
xen = { scheduler = "credit2" }
"""


def test_a_good_fleet_file_reads_with_paths_relative_to_it(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text(GOOD)
    fleet = load_fleet(path)
    assert fleet.mode == "per-board" and [k.name for k in fleet.kinds] == ["rpi4", "zcu102"]
    assert fleet.kinds[0].ssh_identity == str(tmp_path / "keys" / "lab")
    assert fleet.kinds[1].tags == {"board": "zcu102"} and fleet.kinds[1].xen == {"scheduler": "credit2"}


def test_every_problem_is_named_with_its_line():
    text = """coordinator = "127.0.0.1:20408"
mode = "both"
reserve_timout_s = 5

[[kinds]]
name = "rpi4"
places = ["pi4-a", "pi4-a"]
reach = "worker"
boot_timout_s = 1

[[kinds]]
name = "zcu102"
tags = { board = "zcu102" }
reach = "xen-dom0"
worker_dir = "/opt"
"""
    with pytest.raises(SpecError) as err:
        parse_fleet(text, "fleet.toml")
    shown = str(err.value)
    assert "5 problem(s)" in shown, shown
    assert "mode (line 2): Input should be 'spread' or 'per-board'" in shown
    assert "reserve_timout_s (line 3): unknown key (did you mean reserve_timeout_s?)" in shown
    assert "kinds[0].places[1] (line 7): place 'pi4-a' is already in kinds[0]" in shown
    assert "kinds[0].boot_timout_s (line 9): unknown key (did you mean boot_timeout_s?)" in shown
    assert "kinds[1].worker_dir (line 15): only for reach = \"worker\"" in shown


def test_a_backends_options_table_is_only_for_its_reach():
    text = """coordinator = "127.0.0.1:20408"
[[kinds]]
name = "rpi4"
places = ["pi4-a"]
reach = "worker"
xen = { scheduler = "credit2" }

[[kinds]]
name = "zcu102"
places = ["zcu-a"]
reach = "xen-dom0"
xne = { scheduler = "credit2" }
"""
    with pytest.raises(SpecError) as err:
        parse_fleet(text, "fleet.toml")
    shown = str(err.value)
    assert "2 problem(s)" in shown, shown
    assert "kinds[0].xen (line 6): only for reach = \"xen-dom0\"" in shown
    assert "kinds[1].xne (line 12): unknown key (did you mean xen?)" in shown


def test_a_kind_names_its_places_or_its_tags_and_a_coordinator_is_required():
    with pytest.raises(SpecError) as err:
        parse_fleet('[[kinds]]\nname = "x"\nreach = "worker"\n', "f.toml")
    assert "coordinator (line 1): required key is missing" in str(err.value)  # the file's line: no key to point at
    assert "kinds[0] (line 1): give either places (names) or tags" in str(err.value)


def test_toml_syntax_errors_name_the_line():
    with pytest.raises(SpecError) as err:
        parse_fleet('coordinator = "a:1"\nmode = \n', "f.toml")
    assert "(toml syntax) (line 2)" in str(err.value)


def test_a_reach_backend_named_like_a_key_of_a_fleet_kind_is_refused(monkeypatch):
    from xtalk.fleet import model

    class Tags:
        name, reach = "tags", "tags-remote"
    monkeypatch.setattr(model, "reaches", lambda: {"tags-remote": Tags})
    model.fleet_model.cache_clear()
    try:
        with pytest.raises(TypeError, match="backend kind 'tags' declares a fleet reach"):
            model.fleet_model()
    finally:
        model.fleet_model.cache_clear()


def test_the_size_limit_of_a_run_sent_back_is_16_gib_unless_set():
    assert parse_fleet(GOOD, "fleet.toml").max_run_mib == 16384
    assert parse_fleet("max_run_mib = 64\n" + GOOD, "fleet.toml").max_run_mib == 64
    with pytest.raises(SpecError) as err:
        parse_fleet("max_run_mib = 0\n" + GOOD, "fleet.toml")
    assert "max_run_mib (line 1): Input should be greater than or equal to 1" in str(err.value)
