"""Host facts (metadata) and host tuning advice.

May import: cache, plugins, files, tty, signals, errors, controls (the layers below it, pyproject.toml).
"""
