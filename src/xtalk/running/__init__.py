"""Running a campaign: its runs in order, each run watched, its samples stored.

Its own layers, top to bottom (pyproject.toml's `running` contract):
- derived.py: campaigns xtalk derives from a user's spec and runs itself (calibration,
  the channel study, the worst-case search);
- campaign.py: a campaign's runs in order, resumable;
- runner.py: one run: guests started, watched, their samples stored;
- watch.py | preflight.py | pressure.py | ahead.py | run_record.py: what the runner watches
  during a run; the checks before a campaign starts; the pressure each stressor achieved;
  the next run's guests launched while a run ends; what meta.json keeps of a run.

It may import the backends, the instruments, analysis, the spec and everything below
them; the studies, the fleet, the report and the CLI import it.

May import: analysis, backends, instruments, spec, images, parsers, telemetry, host,
results, remote, cache, plugins, files, tty, signals, errors, controls (the layers below it,
pyproject.toml).
"""
