"""Backends: one file per hypervisor (or the bare machine); see base.py."""
