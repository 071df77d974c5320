"""Run every benchmarks/bench_*.py module's main() in turn (`make bench`)."""
import importlib
import pkgutil
import sys
from pathlib import Path


def main() -> int:
    failed = 0
    for mod in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("bench_")):
        print(f"== {mod}", flush=True)
        failed += bool(importlib.import_module(f"benchmarks.{mod}").main())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
