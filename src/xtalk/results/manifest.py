"""A run's manifest: every file of its directory (meta.json aside) with its size, mtime and
SHA-256, written into meta.json `files` once the run's files are final (store.py), and
checked whenever the campaign is read: a file missing, or of another size or content,
makes the run `damaged` (the store leaves it out of the statistics and --resume redoes it).

What is checked on every read: each file's size and mtime (one stat per file, cheap at any
size). The hash is computed only where the mtime differs from the manifest's (a file
rewritten to the same size, or a copy that did not keep mtimes) or when asked
(`xtalk show --verify`): hashing a campaign's Parquet files on every `list` and
`report` would read every byte of every run each time. Caveat: a change that keeps both
size and mtime (a deliberate `touch -d`, bit rot) is found only by --verify.
Hashes stream the file in chunks (bounded memory) and are remembered per (file, size,
mtime) in the checker, so one command hashes a file at most once.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from ..files import open_regular

RECORD = "meta.json"  # holds the manifest, so it is not in it


def _sha256(path: Path) -> str:
    with open_regular(path) as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def run_files(path: Path) -> list[Path]:
    """The run's files the manifest lists: every regular file under its directory but its
    record and temporary files (a name starting with a dot)."""
    return sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink() and p.name != RECORD
                  and not any(part.startswith(".") for part in p.relative_to(path).parts))


def manifest(path: Path) -> dict[str, dict]:
    """{relative path: {bytes, mtime_ns, sha256}} of the run directory `path`."""
    out = {}
    for f in run_files(path):
        st = f.stat()
        out[f.relative_to(path).as_posix()] = {"bytes": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": _sha256(f)}
    return out


class ManifestChecker:
    """Checks run directories against their manifests (verify: hash every file)."""

    def __init__(self, verify: bool = False):
        self.verify = verify
        self._hashes: dict[tuple[str, int, int], str] = {}

    def problem(self, path: Path, files: dict[str, dict]) -> tuple[Path, str] | None:
        """The first file of the run that is not as its manifest says, and what is wrong;
        None when every one is."""
        for name, want in sorted(files.items()):
            file = path / name
            try:
                st = file.stat()
            except FileNotFoundError:
                return file, f"missing (the manifest lists {want['bytes']} bytes)"
            except OSError as err:
                return file, f"cannot be read ({err.strerror or err})"
            if st.st_size != want["bytes"]:
                return file, f"size changed: {st.st_size} bytes, the manifest says {want['bytes']}"
            if self.verify or st.st_mtime_ns != want["mtime_ns"]:
                key = (str(file), st.st_size, st.st_mtime_ns)
                try:
                    digest = self._hashes.get(key) or self._hashes.setdefault(key, _sha256(file))
                except OSError as err:
                    return file, f"cannot be read ({err.strerror or err})"
                if digest != want["sha256"]:
                    return file, f"content changed: SHA-256 {digest[:12]}…, the manifest says {want['sha256'][:12]}…"
        return None

