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
