"""Interference channels: the shared resources through which a neighbour can delay the
measurer, the stressor that loads each by default, and the channel study over them
(docs/channels.md).

May import: running, design, analysis, backends, instruments, spec, images, parsers,
telemetry, host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers below
it, pyproject.toml).
"""
