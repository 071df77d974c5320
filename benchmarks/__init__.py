"""Benchmarks: `python -m benchmarks` runs every bench_*.py module's main() in turn."""
