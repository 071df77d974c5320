"""`xtalk search`: the worst neighbour for a measurer and a placement, found by Optuna
over the stressors' tunable parameters (docs/channels.md, "The worst-case search").

May import: calibration, interference, fleet, lab, report, importer, running, design,
analysis, backends, instruments, spec, images, parsers, telemetry, host, results, remote,
cache, plugins, files, tty, signals, errors, controls (the layers below it, pyproject.toml).
"""
