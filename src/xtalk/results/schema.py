"""Versioned on-disk schema of the results store.

Layout of a campaign directory:
  campaign.json          schema version, name, spec (raw and text), host facts, xtalk version
  runs/<run_id>/meta.json     run metadata; status 'running' until the run ends
  runs/<run_id>/console/<guest>.log   everything each guest printed, appended as it arrives
  runs/<run_id>/events.jsonl  timeline events and phase marks, one JSON object per line
  runs/<run_id>/clock.csv     (host_ns, guest counter) pairs used to map guest time to host time
  runs/<run_id>/samples.bin   raw samples (SAMPLE_DTYPE), appended while the run goes on
  runs/<run_id>/samples.parquet  the same samples with derived columns, written at the end
Bump SCHEMA_VERSION on any incompatible change and say what changed here.
"""
import numpy as np

SCHEMA_VERSION = 1

# Identical to a ring slot (docs/protocol.md): slots are appended verbatim.
SAMPLE_DTYPE = np.dtype(
    [("seq", "<u8"), ("t", "<u8"), ("value", "<u8"), ("metric", "<u4"), ("flags", "<u4")]
)

RUN_STATUSES = ("running", "pass", "fail", "error", "interrupted")
