"""Report writers: tables (shared), plots (matplotlib Agg), html, markdown, junit, build.

May import: running, design, analysis, backends, instruments, spec, images, parsers,
telemetry, host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers below
it, pyproject.toml).
"""
