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

# issue 26's newcomer: a real-time guest's timer latency, a memory-bandwidth neighbour on
# the other core switched on at 1 s and off at 3 s, 3 repetitions, no solo (line 7:
# repetitions)
NEWCOMER_SPEC = """name = "rtcheck"
cpus = [0, 1]
[backend]
kind = "qemu"
[run]
duration_s = 5
repetitions = 3
[measurer]
bench = "timer_latency"
[[stressors]]
name = "membw"
bench = "membw"
[matrix]
placement = ["other-core"]
[[timeline]]
at_s = 1
action = "start"
target = "membw"
[[timeline]]
at_s = 3
action = "stop"
target = "membw"
"""
