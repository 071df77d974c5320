"""results/memory.py release(): the C allocator's free pages go back to the system; Arrow is not imported
by it (a command that never loads Arrow does not pay for it)."""
import subprocess
import sys

FRAGMENTED = """
import sys
from xtalk.results.memory import release
def rss():
    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS')) >> 10
chunks = [bytearray(64 << 10) for _ in range(1600)]  # 100 MB from malloc's heap (below its mmap threshold)
pin = chunks[-1]
del chunks  # freed, but below the last one, which holds the heap's top: glibc keeps their pages
before = rss()
release()
print(before, rss(), "pyarrow" in sys.modules)
"""


def test_release_gives_freed_heap_pages_back_without_importing_arrow():
    out = subprocess.run([sys.executable, "-c", FRAGMENTED], capture_output=True, text=True, check=True).stdout
    before, after, arrow = out.split()
    assert int(before) - int(after) >= 80 and arrow == "False"
