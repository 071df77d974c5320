"""Remote execution: commands in another machine's shell (executors.py: local, or ssh with
one master connection) and labgrid's coordinator (coordinator.py: places found, acquired,
released). The Xen backend, the lab, the fleet and the instruments use them; it imports
only xtalk.errors and xtalk.signals.

May import: cache, plugins, files, tty, signals, errors, controls (the layers below it, pyproject.toml).
"""
