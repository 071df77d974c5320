"""A campaign store made through the results API (CampaignStore.create), the run
metadata and sample arrays tests hand to its RunWriter, and a store rewritten as an older
xtalk wrote it."""
import json

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


def campaign_of_format(store, version):
    """The store's campaign.json as an xtalk of format `version` wrote it (before its hash:
    records.py's history), read again."""
    path = store.path / "campaign.json"
    record = {k: v for k, v in json.loads(path.read_text()).items() if k not in ("record_sha256", "checked")}
    path.write_text(json.dumps(dict(record, schema_version=version)))
    return CampaignStore(store.path)
