"""On-disk layout of the results store (the records and their format versions: records.py).

Layout of a campaign directory:
  campaign.json          schema version, name, spec (raw and text), host facts, xtalk version
  spec.toml              the spec as given (with --set overrides as trailing comments)
  runs.ledger            every run attempt started, a JSON line each (a run whose directory is gone: missing)
  runs/<run_id>/meta.json     run metadata; status 'running' until the run ends
  runs/<run_id>/console/<guest>.log   everything each guest printed, appended as it arrives
  runs/<run_id>/events.jsonl  timeline events and phase marks, one JSON object per line
  runs/<run_id>/clock.csv     (host_ns, guest counter) pairs used to map guest time to host time
  runs/<run_id>/samples.bin   raw samples (SAMPLE_DTYPE), appended while the run goes on
  runs/<run_id>/samples.parquet  the same samples with derived columns, written at the end
  runs/<run_id>.attempt<N>/   an earlier attempt of the run that --resume redid, kept as it was
"""
import numpy as np

# Identical to a ring slot (docs/protocol.md): slots are appended verbatim.
SAMPLE_DTYPE = np.dtype(
    [("seq", "<u8"), ("t", "<u8"), ("value", "<u8"), ("metric", "<u4"), ("flags", "<u4")]
)
# Samples from HOST_SEQ up are an instrument's (xtalk.instruments): measured outside the
# guest, in host ns (their metric says clock = "host"), outside the guest's seq and loss accounting.
HOST_SEQ = 1 << 62
