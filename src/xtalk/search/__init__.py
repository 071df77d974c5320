"""`xtalk search`: the worst neighbour for a measurer and a placement, found by Optuna
over the stressors' tunable parameters (docs/channels.md, "The worst-case search")."""
