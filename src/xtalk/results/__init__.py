"""Results store: one directory per campaign, one per run, durable as samples arrive.

May import: cache, plugins, files, tty, signals, errors, controls (the layers below it, pyproject.toml).
"""
