"""The samples file, runs/<dir>/samples.parquet: its Arrow schema, how it is written, and
the check that one is readable with every column. Its own module because it imports
pyarrow (~0.1 s with NumPy): the records (records.py) and the store's index (store.py),
which every `xtalk list` reads, do not need it for a run whose manifest vouches for the file.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .records import RecordError

_STRING_CODES = pa.dictionary(pa.int32(), pa.string())
SAMPLES_SCHEMA = pa.schema([
    ("run_id", _STRING_CODES), ("config_id", _STRING_CODES), ("attempt", pa.uint16()),
    ("metric", _STRING_CODES),
    ("seq", pa.uint64()), ("t", pa.uint64()), ("value", pa.uint64()), ("flags", pa.uint32()),
    ("value_ns", pa.float64()), ("t_s", pa.float64()), ("warmup", pa.bool_()),
])
SAMPLE_COLUMNS_V1 = [n for n in SAMPLES_SCHEMA.names if n != "attempt"]  # what every format has
# how samples.parquet is written: floats byte-stream-split, counters delta-coded, all LZ4'd:
# the analysis decodes value and t_s two to three times as fast as dictionary/plain pages
# compressed with zstd, and the files are about a third smaller
_PLAIN_ENCODINGS = {"value_ns": "BYTE_STREAM_SPLIT", "t_s": "BYTE_STREAM_SPLIT",
                    "seq": "DELTA_BINARY_PACKED", "t": "DELTA_BINARY_PACKED"}
SAMPLES_WRITE_OPTIONS = dict(
    compression="lz4", column_encoding=_PLAIN_ENCODINGS,
    use_dictionary=[n for n in SAMPLES_SCHEMA.names if n not in _PLAIN_ENCODINGS])


def check_samples(path: Path) -> None:
    """The samples file is there, a Parquet file (its footer reads) with every column."""
    try:
        names = pq.read_schema(path).names
    except FileNotFoundError:
        raise RecordError(path, "missing") from None
    except (OSError, pa.ArrowException) as err:
        raise RecordError(path, f"not a readable Parquet file ({err})") from None
    missing = [c for c in SAMPLE_COLUMNS_V1 if c not in names]
    if missing:
        raise RecordError(path, f"no column {', '.join(missing)}")
