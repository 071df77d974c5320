"""Which accelerator a QEMU guest gets on this host (KVM or TCG) and why: the qemu
backend's choice, stored with each run. Caveat: a kvm-pvm host (see shared host facts)
emulates a guest's ring 0 under KVM, so a guest with a kernel of its own gets TCG there."""
from __future__ import annotations

from ..errors import InfrastructureError
from ..host.arches import normalise


def choose_accel(wanted: str, arch: str, host: dict) -> tuple[str, str]:
    """(accel, why) for this guest arch on this host."""
    same_arch = normalise(host["machine"]) == arch
    kvm = host["kvm"]
    if wanted == "tcg":
        return "tcg", "the spec asks for tcg"
    if not same_arch:
        reason = f"a {arch} guest on a {host['machine']} host needs TCG"
    elif not kvm["available"]:
        reason = f"no usable KVM: {kvm['reason']}"
    else:
        return "kvm", f"/dev/kvm usable ({kvm['kind']})"
    if wanted == "kvm":
        raise InfrastructureError(f"accel=kvm asked for, but {reason}")
    return "tcg", reason


def choose_accel_linux(wanted: str, arch: str, host: dict) -> tuple[str, str]:
    """choose_accel for a Linux guest or a foreign image (a kernel of its own): on kvm-pvm
    its ring 0 would be emulated instruction by instruction under KVM (a Linux kernel even
    stops there with a KVM internal error), so auto picks TCG there (see shared host facts)."""
    accel, why = choose_accel(wanted, arch, host)
    if accel == "kvm" and wanted == "auto" and host["kvm"].get("emulates_ring0"):
        return "tcg", (f"/dev/kvm is {host['kvm']['kind']}: a guest kernel (ring 0) would be "
                       "emulated instruction by instruction; TCG instead")
    return accel, why
