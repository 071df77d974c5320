"""Host facts as host/metadata.py records them (LLC and cache list), for tests of what
follows the host's caches (guest memory, size parameters)."""

MIB = 1 << 20


def host(llc_mib: int) -> dict:
    return {"llc_bytes": llc_mib * MIB, "caches": [
        {"level": 1, "type": "Data", "size_bytes": 48 << 10},
        {"level": 1, "type": "Instruction", "size_bytes": 64 << 10},
        {"level": 2, "type": "Unified", "size_bytes": 2 * MIB},
        {"level": 3, "type": "Unified", "size_bytes": llc_mib * MIB}]}
