"""A probe guest's RAM follows its bench's buffers on the run's caches, once per vCPU for a
bench that runs on each."""
from tests.framework.hosts import MIB, host
from xtalk.backends.guest_memory import PROBE_BUFFERS_MAX, buffer_bytes, fitted_params, probe_memory_mib
from xtalk.spec.plan import GuestPlan
from xtalk.spec.sizes import host_caches


def guest(bench: str, cpus: tuple[int, ...] = (0,), **params) -> GuestPlan:
    return GuestPlan("g", "measurer", bench, params, cpus)


def test_a_pointer_chase_over_twice_a_large_llc_gets_room():
    big = host_caches(host(480))
    assert buffer_bytes(guest("membw"), big) == 960 * MIB  # default size llc*2
    assert probe_memory_mib(guest("membw"), big) == 1152  # 960 * 1.125 + 64, to 64 MiB
    assert probe_memory_mib(guest("cache_thrash"), big) == 896  # llc*1.5 = 720 MiB


def test_small_caches_and_explicit_sizes_keep_the_floor():
    assert probe_memory_mib(guest("membw"), host_caches(host(8))) == 256
    assert buffer_bytes(guest("pointer_chase"), host_caches(host(480))) == 8 * MIB  # default l2*4
    assert buffer_bytes(guest("pointer_chase", size="4m"), host_caches(host(480))) == 4 * MIB
    assert buffer_bytes(guest("pointer_chase", size="l2*3"), host_caches(host(480))) == 6 * MIB
    assert probe_memory_mib(guest("cpu_spin"), host_caches(host(480))) == 256  # no buffers
    assert probe_memory_mib(guest("latency_measure"), host_caches(host(480))) == 256  # not a probe bench


def test_a_memcpy_gets_room_for_its_source_and_destination():
    assert buffer_bytes(guest("memcpy", size="llc*1.25"), host_caches(host(480))) == 2 * 600 * MIB
    assert probe_memory_mib(guest("memcpy", size="llc*1.25"), host_caches(host(480))) == 1472  # 1200 * 1.125 + 64, to 64 MiB
    assert probe_memory_mib(guest("memcpy"), host_caches(host(480))) == 256  # default 1m


def test_a_shared_size_takes_the_run_s_shared_level():
    caches = host_caches(host(480)) | {"shared": 16 * MIB}
    assert buffer_bytes(guest("cache_thrash", size="shared*2"), caches) == 32 * MIB
    assert buffer_bytes(guest("cache_thrash", size="shared*2"), host_caches(host(480))) == 0  # unknown: spec check says so


def test_a_bench_on_every_vcpu_gets_room_for_each_vcpu_s_buffers():
    big = host_caches(host(480))
    assert buffer_bytes(guest("stream", (0, 1)), big) == 2 * 1920 * MIB  # llc*4 on each of two vCPUs
    assert probe_memory_mib(guest("stream", (0, 1)), big) == 4416  # 3840 * 1.125 + 64, to 64 MiB
    assert probe_memory_mib(guest("stream", (0, 1, 2, 3), size="64m"), big) == 384  # 256 * 1.125 + 64
    assert probe_memory_mib(guest("stream", (1, 1)), big) == 4416  # stacked: still two vCPUs' arrays
    assert buffer_bytes(guest("stream", (0,)), big) == 1920 * MIB  # one vCPU: as before
    assert buffer_bytes(guest("membw", (0, 1)), big) == 960 * MIB  # runs on one vCPU: its buffer once
    assert probe_memory_mib(guest("dhrystone", (0, 1)), big) == 256  # on every vCPU, but no buffers


def test_fitted_sizes_cap_the_buffers_of_all_vcpus_together():
    big = host_caches(host(480))
    assert fitted_params("stream", {}, big) == ({}, None)  # 1920 MiB fit alone
    params, said = fitted_params("stream", {}, big, vcpus=2)  # 2 x 1920 MiB do not
    assert params == {"size": PROBE_BUFFERS_MAX // 2} and "on each of its 2 vCPUs" in said, said
    params, _ = fitted_params("stream", {"size": "1g"}, big, vcpus=3)
    assert params["size"] % 4096 == 0 and 3 * params["size"] <= PROBE_BUFFERS_MAX < 3 * (params["size"] + 4096)
    assert fitted_params("membw", {}, big, vcpus=4) == ({}, None)  # one buffer of 960 MiB, on one vCPU
