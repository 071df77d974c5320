"""Host facts (metadata) and host tuning advice.

May import: cache, plugins, files, signals, errors (the layers below it, pyproject.toml).
"""
