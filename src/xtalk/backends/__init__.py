"""Backends: one file per hypervisor (or the bare machine); see base.py.

May import: spec, images, parsers, telemetry, host, results, remote, cache, plugins,
files, tty, signals, errors, controls (the layers below it, pyproject.toml).
"""
