"""Calibration: can this host and backend measure what a campaign needs (`xtalk calibrate`)?

- calibrate.py: the two derived campaigns (an injected steal of known lengths, an A/A)
  and their checks;
- steal.py: the steal analysis (each logged steal matched to the gap that covers it);
- answer.py: the bottom line a user reads.

A study of the same kind as channels/ and search/: it runs derived campaigns
(running/derived.py) and may import running, analysis and everything below.

May import: running, design, analysis, backends, instruments, spec, images, parsers,
telemetry, host, results, remote, cache, plugins, files, tty, signals, errors, controls (the layers below
it, pyproject.toml).
"""
