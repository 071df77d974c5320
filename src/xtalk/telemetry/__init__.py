"""Sample telemetry: the shared-memory ring (docs/protocol.md section 3).

May import: host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers
below it, pyproject.toml).
"""
