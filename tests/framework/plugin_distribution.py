"""An installed distribution that declares plug-ins of xtalk by entry points, made in a
directory for a test: on the Python path, it is what `pip install` of a package with those
entry points leaves in site-packages (xtalk.plugins finds backends, parsers, instruments,
analysis stages and report sections through them)."""
from __future__ import annotations

from pathlib import Path


def installed(where: Path, name: str, entry_points: dict[str, str]) -> Path:
    """`where`, holding the distribution `name` whose entry points are {group: module}."""
    info = where / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("".join(f"[{group}]\n{name} = {module}\n"
                                                   for group, module in entry_points.items()))
    return where
