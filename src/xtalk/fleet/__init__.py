"""Fleets of boards managed by labgrid: xtalk run SPEC --fleet FLEET (docs/fleet.md).

May import: running, design, analysis, backends, instruments, spec, images, parsers,
telemetry, host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers below
it, pyproject.toml).
"""
