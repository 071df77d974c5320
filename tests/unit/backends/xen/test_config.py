"""xen backend: options as the spec sees them, domain config generation, xl output parsing."""
from __future__ import annotations

import pytest

from xtalk.plugins import check_backend_options
from xtalk.backends.xen.xl import (XenOptions, cpu_list, domain_config, expand_cpus, guest_colours,
                                llc_coloring_on, parse_vcpu_list, parse_xl_info, parse_xl_list,
                                schedulers_from_config, unknown_colour_guests, xl_literal)
from xtalk.errors import SpecError
from xtalk.spec.plan import plan
from xtalk.spec.load import parse_campaign


def test_config_has_kernel_cmdline_memory_and_hard_affinity():
    opts = XenOptions(memory_mib=128, vcpus=1, credit2_weight=512, credit2_cap=50, soft_affinity=[1, 2],
                      xl_extra={"tsc_mode": "native", "vcpu_hotplug": False})
    cfg = domain_config("xtalk-1-r0-measurer", "/run/xtalk/images/p.img",
                        "bench=qsort run=solo-r1 role=measurer duration_s=4", opts, (2,), "xtalk-pool")
    lines = dict(line.split(" = ", 1) for line in cfg.strip().splitlines())
    assert lines["name"] == '"xtalk-1-r0-measurer"'
    assert lines["type"] == '"pvh"'
    assert lines["kernel"] == '"/run/xtalk/images/p.img"'
    assert lines["cmdline"] == '"bench=qsort run=solo-r1 role=measurer duration_s=4"'
    assert lines["memory"] == "128" and lines["vcpus"] == "1"
    assert lines["cpus"] == '"2"' and lines["cpus_soft"] == '"1,2"'
    assert lines["pool"] == '"xtalk-pool"'
    assert lines["weight"] == "512" and lines["cap"] == "50"
    assert lines["tsc_mode"] == '"native"' and lines["vcpu_hotplug"] == "0"
    assert lines["on_crash"] == '"preserve"'  # kept so a crash is seen, then destroyed by stop()


def test_config_without_optional_keys():
    cfg = domain_config("d", "/k", "bench=cpu_spin run=r role=stressor", XenOptions(), (1,), None)
    assert "pool" not in cfg and "weight" not in cfg and "cpus_soft" not in cfg
    assert 'cpus = "1"' in cfg


@pytest.mark.parametrize("bad", ['a"b', "a\\b", "a\nb", "x\x1by"])
def test_xl_literal_refuses_what_could_escape_a_string(bad):
    with pytest.raises(ValueError):
        xl_literal(bad)


def test_cmdline_values_with_quotes_are_refused():
    with pytest.raises(ValueError):
        domain_config("d", "/k", 'bench=qsort label="x"', XenOptions(), (1,), None)


def test_linux_rt_config_has_its_ramdisk_and_more_memory():
    opts = XenOptions(image="linux-rt")
    assert (opts.memory, opts.slots) == (256, 65536)
    assert (XenOptions().memory, XenOptions().slots) == (64, 8192)
    cfg = domain_config("d", "/run/xtalk/images/k-vmlinuz", "console=hvc0 xtalk.bench=cyclictest", opts, (1,), None,
                        ramdisk="/run/xtalk/images/i-initramfs.cpio")
    lines = dict(line.split(" = ", 1) for line in cfg.strip().splitlines())
    assert lines["ramdisk"] == '"/run/xtalk/images/i-initramfs.cpio"' and lines["memory"] == "256"
    assert "ramdisk" not in domain_config("d", "/k", "bench=qsort", XenOptions(), (1,), None)


def test_linux_rt_needs_room_and_ramdisk_is_xtalks():
    problems = _problems({"image": "linux-rt", "memory_mib": 128})
    assert "256" in problems["memory_mib"]
    assert _problems({"image": "linux-rt", "memory_mib": 512}) == {}
    assert _problems({"image": "linux"})["image"].startswith("Input should be")
    assert "set by xtalk" in _problems({"xl_extra": {"ramdisk": "/x"}})["xl_extra"]


def test_xl_literal_lists_and_numbers():
    assert xl_literal([1, "a", 2.5]) == '[1, "a", 2.5]'
    assert xl_literal(True) == "1"
    assert cpu_list((0, 2)) == "0,2"


def _problems(options):
    return dict(check_backend_options("xen", options))


def test_option_problems_name_the_key():
    problems = _problems({"schedulr": "credit2", "credit2_weight": 0, "scheduler": "fifo",
                          "xl_extra": {"name": "x"}})
    assert problems["schedulr"] == "unknown option for the xen backend"
    assert "credit2_weight" in problems
    assert "scheduler" in problems and "credit2" in problems["scheduler"]
    assert "xl_extra" in problems and "set by xtalk" in problems["xl_extra"]


def test_executor_and_scheduler_consistency():
    assert "ssh_host" in _problems({"executor": "ssh"})
    assert "rtds_budget_us" in _problems({"scheduler": "rtds", "rtds_period_us": 1000})
    assert "rtds_budget_us" in _problems({"scheduler": "rtds", "rtds_period_us": 1000, "rtds_budget_us": 2000})
    assert "credit2_weight" in _problems({"scheduler": "credit", "credit2_weight": 256})
    assert _problems({"executor": "ssh", "ssh_host": "root@board", "scheduler": "rtds",
                      "rtds_period_us": 10000, "rtds_budget_us": 4000}) == {}


def test_spec_errors_point_at_backend_keys():
    text = """
name = "x"
[backend]
kind = "xen"
executor = "lab"
credit2_weight = "heavy"
[measurer]
bench = "qsort"
"""
    with pytest.raises(SpecError) as err:
        parse_campaign(text, "spec.toml", check_backend_options)
    assert any(p.path == "backend.credit2_weight" for p in err.value.problems)


def test_parsers():
    info = parse_xl_info("host : lab\nxen_version            : 4.17.7\nxen_scheduler          : credit2\n")
    assert info["xen_version"] == "4.17.7" and info["xen_scheduler"] == "credit2"
    listing = parse_xl_list("Name  ID   Mem VCPUs\tState\tTime(s)\nDomain-0  0  768  1  r-----  7.1\n"
                            "xtalk-1-r0-measurer  3  64  1  ---s--  0.5\n")
    assert listing["xtalk-1-r0-measurer"] == {"id": 3, "state": "---s--", "time_s": 0.5}
    vcpus = parse_vcpu_list("Name  ID  VCPU   CPU State   Time(s) Affinity (Hard / Soft)\n"
                            "Domain-0   0     0    0   r--      16.3  0 / all\n"
                            "t1         1     0    1   ---       0.5  1-2,4 / all\n")
    assert vcpus[1]["hard_affinity"] == "1-2,4" and vcpus[1]["soft_affinity"] == "all"
    assert expand_cpus("1-2,4") == {1, 2, 4} and expand_cpus("all") is None


def test_schedulers_from_build_config():
    config = "CONFIG_HYPFS=y\nCONFIG_SCHED_CREDIT=y\nCONFIG_SCHED_CREDIT2=y\n# CONFIG_SCHED_RTDS is not set\n"
    assert schedulers_from_config(config) == ["credit", "credit2"]
    assert schedulers_from_config("CONFIG_SCHED_NULL=y\nCONFIG_SCHED_RTDS=y\n") == ["rtds", "null"]
    assert schedulers_from_config("no config") is None


def test_matrix_values_of_backend_options_are_checked_by_the_backend():
    text = """
name = "x"
[backend]
kind = "xen"
executor = "lab"
[measurer]
bench = "qsort"
[matrix]
"backend.credit2_weight" = [256, 0]
"""
    with pytest.raises(SpecError) as err:
        parse_campaign(text, "spec.toml", check_backend_options)
    (problem,) = err.value.problems
    assert problem.path == "matrix.backend.credit2_weight" and "value 0: backend.credit2_weight" in problem.message


def test_llc_colouring_needs_4_20_the_boot_flag_and_the_build_option():
    info = {"xen_major": "4", "xen_minor": "20", "xen_commandline": "console=dtuart llc-coloring=on dom0_mem=768M"}
    assert llc_coloring_on(info, "CONFIG_LLC_COLORING=y\nCONFIG_HAS_LLC_COLORING=y\n")
    assert llc_coloring_on(info, None)  # no hypfs: the boot flag has to do
    assert not llc_coloring_on(info, "CONFIG_HAS_LLC_COLORING=y\n# CONFIG_LLC_COLORING is not set\n")  # Debian's 4.20
    assert not llc_coloring_on({**info, "xen_commandline": "llc-coloring=off"}, None)
    assert not llc_coloring_on({**info, "xen_minor": "17"}, None)
    assert llc_coloring_on({**info, "xen_commandline": "llc-size=2M llc-nr-ways=16"}, None)  # implied
    assert not llc_coloring_on({**info, "xen_commandline": "llc-coloring=no llc-size=2M llc-nr-ways=16"}, None)


def test_llc_colours_per_guest_by_instance_stressor_or_for_all():
    table = XenOptions(llc_colors={"measurer": [0, 1, 2, 3], "copy": [8, 9], "copy-3": [12]})
    assert guest_colours(table, "measurer") == [0, 1, 2, 3]
    assert guest_colours(table, "copy-2", "copy") == [8, 9]  # an instance: its stressor's colours
    assert guest_colours(table, "copy-3", "copy") == [12]  # unless it has colours of its own
    assert guest_colours(table, "hog", "hog") is None  # not named: every colour (Xen's default)
    assert guest_colours(XenOptions(llc_colors=[4, 5]), "hog", "hog") == [4, 5]
    off = XenOptions(llc_colors={"measurer": [0]}, llc_colouring=False)
    assert guest_colours(off, "measurer") is None
    cfg = domain_config("d", "/k", "role=measurer", table, (1,), None, colours=guest_colours(table, "measurer"))
    assert 'llc_colors = ["0", "1", "2", "3"]' in cfg
    assert "llc_colors" not in domain_config("d", "/k", "role=measurer", off, (1,), None,
                                             colours=guest_colours(off, "measurer"))
    assert unknown_colour_guests(table, {"measurer", "copy", "copy-2"}) == ["copy-3"]
    assert unknown_colour_guests(XenOptions(llc_colors=[1]), set()) == []


def test_llc_colouring_is_a_matrix_dimension_and_bad_colours_are_named():
    base = """name = "c"
cpus = [1, 2]
[backend]
kind = "xen"
[backend.xen]
llc_colors = { measurer = [0, 1], copy = [2, 3] }
[measurer]
bench = "qsort"
[[stressors]]
name = "copy"
bench = "memcpy"
"""
    runs = plan(*parse_campaign(base + '[matrix]\n"backend.llc_colouring" = [false, true]\n', "spec.toml",
                                check_backend_options))
    assert sorted({r.spec.backend.options["llc_colouring"] for r in runs}) == [False, True]
    with pytest.raises(SpecError) as err:
        parse_campaign(base.replace("[2, 3]", '"2-3"'), "spec.toml", check_backend_options)
    paths = [p.path for p in err.value.problems]
    assert paths and all(p.startswith("backend.xen.llc_colors") and "[" not in p for p in paths), paths


def test_a_foreign_domu_boots_its_own_kernel_ramdisk_and_command_line(tmp_path):
    """xen_images.DomainImage with a dom0 that keeps files in a dict: the user's files go up
    once per content; the config has nothing of xtalk's (no workload tokens, no probe)."""
    import hashlib

    from xtalk.remote.executors import Result
    from xtalk.backends.xen.images import DomainImage
    from xtalk.spec.plan import GuestPlan

    class Dom0:
        def __init__(self):
            self.files, self.puts = {}, 0

        def run(self, argv, timeout=60.0, repeatable=False):
            if argv[0] == "sha256sum" and argv[1] in self.files:
                return Result(argv, 0, f"{hashlib.sha256(self.files[argv[1]]).hexdigest()}  {argv[1]}\n", "")
            return Result(argv, 0 if argv[0] == "mkdir" else 1, "", "")

        def put(self, path, data, mode=0o644):
            self.files[path], self.puts = data, self.puts + 1

    (tmp_path / "zephyr.bin").write_bytes(b"kernel")
    (tmp_path / "rd.cpio").write_bytes(b"ramdisk")
    guest = GuestPlan("measurer", "measurer", "latency_measure", {}, (1,), output="zephyr-latency-measure",
                      image=str(tmp_path / "zephyr.bin"), initrd=str(tmp_path / "rd.cpio"), append="console=hvc0")
    dom0, image = Dom0(), DomainImage("probe", "arm64")
    for _ in range(2):  # a second run finds the files there
        image.upload(dom0, dom0.run, (guest,))
    assert dom0.puts == 2 and image.kernel is None  # xtalk's probe: neither built nor uploaded
    boot = image.boot(guest, None, XenOptions(), None)
    assert boot.kernel.endswith("-zephyr.bin") and boot.ramdisk.endswith("-rd.cpio")
    assert (boot.cmdline, boot.memory_mib) == ("console=hvc0", 256)
    assert image.info["foreign_images"][guest.image]["dom0_path"] == boot.kernel
    cfg = domain_config("d", boot.kernel, boot.cmdline, XenOptions(), (1,), None, boot.ramdisk, boot.memory_mib)
    assert 'cmdline = "console=hvc0"' in cfg and "memory = 256" in cfg and "bench=" not in cfg
    bare = domain_config("d", boot.kernel, "", XenOptions(memory_mib=32), (1,), None)
    assert "cmdline" not in bare and "memory = 32" in bare
