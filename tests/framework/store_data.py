"""A campaign store made through the results API (CampaignStore.create), and the run
metadata and sample arrays tests hand to its RunWriter."""
import numpy as np

from xtalk.results.schema import SAMPLE_DTYPE
from xtalk.results.store import CampaignStore


def samples(values, t0=0, period=1000, metric=0):
    out = np.zeros(len(values), SAMPLE_DTYPE)
    out["seq"] = np.arange(len(values))
    out["t"] = t0 + period * (np.arange(len(values)) + 1)
    out["value"] = values
    out["metric"] = metric
    return out


def new_store(tmp_path, runs=("solo-r1",)):
    return CampaignStore.create(tmp_path, "c", "name='c'", {"name": "c"}, {"cpu_model": "x"}, list(runs))


def meta(run_id, **extra):
    return {"run_id": run_id, "config_id": run_id.rsplit("-", 1)[0], "index": 0,
            "config": {"placement": run_id.rsplit("-", 1)[0]}, **extra}
