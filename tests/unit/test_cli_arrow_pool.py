"""The xtalk command's Arrow buffers come from the C library's allocator (cli/main.py
_lean_arrow_memory), chosen as the command starts, before main.py's imports load Arrow:
Arrow reads ARROW_DEFAULT_MEMORY_POOL once, when it is imported, and with mimalloc the
Parquet reader and writer kept 30-40 MB resident after a pass over a run's samples."""
import os
import subprocess
import sys

AS_THE_COMMAND = ("import sys; sys.argv = ['xtalk', '--version']; import xtalk.cli.main, pyarrow; "
                  "print(pyarrow.default_memory_pool().backend_name)")


def test_the_command_loads_arrow_with_the_system_allocator():
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    out = subprocess.run([sys.executable, "-c", AS_THE_COMMAND], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["system"]
