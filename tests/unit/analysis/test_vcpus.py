"""The order of a guest's vCPU metrics: together, the worst first; other metrics stay put."""
from xtalk.analysis.vcpus import vcpu_of, worst_first


def test_vcpu_of_splits_a_copy_and_leaves_other_names():
    assert vcpu_of("lock_acquire_vcpu12") == ("lock_acquire", 12)
    assert vcpu_of("cyclictest_t1") == ("cyclictest", 1)  # a thread per vCPU
    assert vcpu_of("qsort") == ("qsort", None) and vcpu_of("tm_total") == ("tm_total", None)


def test_the_worst_vcpu_first_at_the_first_copys_place():
    names = ["qsort", "lock_acquire_vcpu0", "x", "lock_acquire_vcpu1", "lock_acquire_vcpu2"]
    badness = {"lock_acquire_vcpu0": 1.0, "lock_acquire_vcpu1": 9.0, "lock_acquire_vcpu2": 9.0, "qsort": 100.0}
    assert worst_first(names, badness) == ["qsort", "lock_acquire_vcpu1", "lock_acquire_vcpu2", "lock_acquire_vcpu0", "x"]


def test_a_copy_without_a_value_goes_last():
    assert worst_first(["a_vcpu0", "a_vcpu1"], {"a_vcpu1": 0.0}) == ["a_vcpu1", "a_vcpu0"]
