"""Campaign spec text for tests of spec loading and planning (no CLI, nothing runs)."""

MINIMAL_SPEC = """
name = "t"
cpus = [0, 1]
[measurer]
bench = "qsort"
iterations = 5
[[stressors]]
name = "thrash"
bench = "cache_thrash"
"""

# a measurer alone on a backend, short runs: what `xtalk channels` and `xtalk search` take
MEASURER_ONLY = """
name = "{name}"
cpus = [0, 1]
[backend]
kind = "{backend}"
[run]
duration_s = 0.5
grace_s = 10
[measurer]
bench = "{bench}"
{rest}
"""
