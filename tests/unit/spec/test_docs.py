"""docs/spec.md must name every key of the spec model, so the reference cannot drift."""
from pydantic import BaseModel

from tests.framework.repo import ROOT
from xtalk.spec.model import Campaign


def keys(model: type[BaseModel]) -> set[str]:
    out = set()
    for name, field in model.model_fields.items():
        out.add(field.alias or name)
        for arg in getattr(field.annotation, "__args__", ()) + (field.annotation,):
            inner = getattr(arg, "__args__", (arg,))
            for t in inner:
                if isinstance(t, type) and issubclass(t, BaseModel):
                    out |= keys(t)
    return out


def test_every_spec_key_is_documented():
    text = (ROOT / "docs" / "spec.md").read_text()
    missing = sorted(k for k in keys(Campaign) if f"`{k}`" not in text and f"[{k}]" not in text)
    assert missing == []
