"""The analysis result's contract checked at run time in tests: report.json (and
`xtalk show --json`) must hold exactly the keys of xtalk.analysis.stages.contract() (the
header's and every stage's), each of its declared type, plus the report's own `sections` where a report wrote it. Result is a
TypedDict, which the product does not check as it runs; this is where it is checked."""
from __future__ import annotations

from pydantic import ConfigDict, TypeAdapter, with_config

from xtalk.analysis.stages import contract

# the result with no key more, each value of its declared type, no coercion
EXACT = TypeAdapter(with_config(ConfigDict(extra="forbid", strict=True))(contract()))
REPORT_ONLY = ("sections", "headline")  # report.json's keys beyond the analysis result


def check_result(data: dict) -> None:
    """Raise pydantic's ValidationError (naming the key) when `data` is not a Result."""
    EXACT.validate_python({k: v for k, v in data.items() if k not in REPORT_ONLY})
