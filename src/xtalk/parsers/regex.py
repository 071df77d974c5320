"""The `regex` output: any guest, read with patterns the spec gives ([….parser]).

Options: `sample` (required): a Python regex with a named group `value` (the number) and
optionally `metric` (its name), `unit` (ns, us, ms, s, count or cycles) and `t` (the
guest's time of the sample, in seconds after the begin); `metric`: the name of samples
whose match has no metric group (default: the one name in `metrics`); `unit` (default
ns) and `kind` (duration, throughput, latency, gap or loss; default duration) for every
sample; `begin`, `end`, `fail`: patterns of the line that starts the measurement, the one
that ends it and one that fails the guest; `metrics`: every metric name it can report
(spec check holds deadlines and gates against them; without it only a fixed `metric`
is known before a run). A line is searched (not matched whole) once ANSI escapes are
gone; it gives at most one sample (its first match). Without `begin` the first sample
is the begin; samples before the begin and lines after the end are ignored; `fail`
counts on any line. Without `end` the guest runs for the run's duration
(ends_itself is False).
Caveats: times are stored in ns and counts as printed; a sample whose unit group holds
something else, or whose value or t is no number, fails the guest.
"""
from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from .base import Event, OutputParser, plain
from .xt import METRIC_KINDS

UNITS = ("ns", "us", "ms", "s", "count", "cycles")


def _compiled(pattern: str) -> re.Pattern:
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"not a regular expression: {err}") from None


class RegexOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    sample: str
    metrics: list[str] | None = None
    metric: str | None = Field(default=None, validate_default=True)
    unit: Literal[UNITS] = "ns"  # type: ignore[valid-type]
    kind: Literal[METRIC_KINDS] = "duration"  # type: ignore[valid-type]
    begin: str | None = None
    end: str | None = None
    fail: str | None = None

    @field_validator("sample", "begin", "end", "fail")
    @classmethod
    def _pattern(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None:
            pattern = _compiled(value)
            if info.field_name == "sample" and "value" not in pattern.groupindex:
                raise ValueError("needs a named group `value` with the number, e.g. 'lat=(?P<value>\\d+)'")
        return value

    @field_validator("metric")
    @classmethod
    def _named(cls, value: str | None, info: ValidationInfo) -> str | None:
        sample, metrics = info.data.get("sample"), info.data.get("metrics")
        if value is not None and metrics is not None and value not in metrics:
            raise ValueError(f"{value!r} is not one of `metrics` ({', '.join(metrics)})")
        if value is None and sample is not None and "metric" not in re.compile(sample).groupindex:
            if metrics is None or len(metrics) != 1:
                raise ValueError("name the metric: `sample` has no group `metric`, and `metrics` does not "
                                 "have exactly one name")
            return metrics[0]
        return value


class RegexParser(OutputParser):
    name: ClassVar[str] = "regex"
    summary: ClassVar[str] = "any guest: samples, begin, end and failures by the patterns you give"
    Options: ClassVar[type[BaseModel]] = RegexOptions

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        opts = self.options
        self._sample = re.compile(opts.sample)
        self._begin, self._end, self._fail = (re.compile(p) if p is not None else None
                                              for p in (opts.begin, opts.end, opts.fail))
        self.ends_itself = self._end is not None

    @classmethod
    def declared_metrics(cls, options: dict) -> tuple[str, ...] | None:
        opts = cls.Options.model_validate(options)
        if opts.metrics is not None:
            return tuple(opts.metrics)
        return None if opts.metric is None else (opts.metric,)

    def parse(self, line: str, now_ns: int) -> Event | None:
        text = plain(line)
        if self._fail is not None and self._fail.search(text):
            return self.failed(text.strip())
        if self.end is not None:
            return None
        if self.begin is None and self._begin is not None:
            return self.began(now_ns) if self._begin.search(text) else None
        if self.begin is not None and self._end is not None and self._end.search(text):
            return self.ended()
        m = self._sample.search(text)
        return None if m is None else self._record(m.groupdict(), text, now_ns)

    def _record(self, groups: dict[str, str | None], text: str, now_ns: int) -> Event:
        self.began(now_ns)
        name = groups.get("metric") or self.options.metric
        unit = groups.get("unit") or self.options.unit
        value, t = _number(groups["value"]), _number(groups.get("t") or "0")
        if name is None or unit not in UNITS or value is None or t is None:
            return self.failed(f"no sample in {text!r}: its metric, unit ({', '.join(UNITS)}), value or t is "
                               "missing or wrong")
        t_ns = now_ns if groups.get("t") is None else int(self.begin["t0"]) + round(t * 1e9)
        return self.sample(name, value, t_ns, unit, self.options.kind)


def _number(text: str | None) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None
