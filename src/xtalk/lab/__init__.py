"""The Xen lab: Xen and dom0 booted under QEMU on this machine (`xtalk lab start xen`),
built from Debian's packages (recipe.py; the all-schedulers Xen from source: xen_source.py),
started, found and stopped (vm.py), and the executor that reaches its dom0 (xen_link.py).

May import: running, design, analysis, backends, instruments, spec, images, parsers,
telemetry, host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers below
it, pyproject.toml).
"""
