"""Campaign specs: model (model.py), TOML loading with located errors (load.py), the plan
of runs (plan.py), JSON Schema export. This package's own module imports nothing: a
module that needs the catalogue or a size rule (a backend a record names) does not pay for
the spec's pydantic models.

May import: images, parsers, telemetry, host, results, remote, cache, plugins, files, tty,
signals, errors, controls (the layers below it, pyproject.toml).
"""
