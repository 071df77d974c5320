"""Fleets of boards managed by labgrid: xtalk run SPEC --fleet FLEET (docs/fleet.md)."""
