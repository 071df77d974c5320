r"""The `regex` output: any guest, read with patterns the spec gives ([….parser]).

Options: `sample` (required): a pattern with a named group `value` (the number) and
optionally `metric` (its name), `unit` (the unit it is printed in) and `t` (the guest's
time of the sample, in seconds after the begin); `metric`: the name of samples whose
match has no metric group (default: the one name in `metrics`); `unit` (default ns): the
unit every metric is stored in (units.py: times, count, cycles, rates such as MB/s, GB/s,
MiB/s, iter/s, ops/s, Hz; a printed unit of the same quantity is converted into it, e.g.
12.3 GB/s into 12,300 MB/s) and `kind` (duration, throughput, latency, gap or loss;
default throughput for a rate, else duration); `begin`, `end`, `fail`: patterns of the
line that starts the measurement, the one that ends it and one that fails the guest;
`metrics`: every metric name it can report (spec check holds deadlines and gates against
them; without it only a fixed `metric` is known before a run).
Patterns are RE2's syntax, run in time linear in the line (patterns.py: Python's for
what a console needs; no backreferences nor look-arounds, refused before a run).
A line (screen.py: newlines, carriage returns and cursor addressing end one) is searched,
not matched whole, once ANSI escapes are gone; every match of `sample` in it is a sample
(`bw=(?P<value>[\d.]+) (?P<unit>[MG]B/s)` reads both figures of `bw=1.5 GB/s bw=900 MB/s`).
Without `begin` the first sample is the begin; samples before the begin and lines after
the end are ignored; `fail` counts on any line. Without `end` the guest runs for the
run's duration (ends_itself is False).
Options are checked before a run: `unit` must be known, and a `unit` group (or a rate
written in `sample`) must be able to give a unit that converts into `unit`.
Caveats: values are stored as integers in the metric's unit; a sample whose unit group
holds a unit that does not convert into `unit`, or whose value or t is no number, fails
the guest.
"""
from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from . import units
from ..plugins import PARSERS
from .base import Event, OutputParser, plain
from .patterns import compile_pattern, group_text
from .xt import METRIC_KINDS


def _printed_units(sample: str) -> list[str] | None:
    """The units `sample` can read: those its `unit` group matches, else the rates it
    spells out (`(?P<value>\\d+) MB/s`); None where it says nothing of units."""
    group = group_text(sample, "unit")
    if group is not None:
        try:
            unit_group = compile_pattern(group)
        except ValueError:  # a group that does not stand alone (cut inside a \Q...\E quote): only a run tells
            return None
        return [u for u in units.UNITS if unit_group.fullmatch(u)]
    text = sample.replace("\\/", "/")
    return [u for u, unit in units.UNITS.items() if unit.is_rate and "/" in u
            and re.search(rf"(?<![\w/]){re.escape(u)}(?![\w/])", text)] or None


class RegexOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    sample: str
    metrics: list[str] | None = None
    metric: str | None = Field(default=None, validate_default=True)
    unit: str = Field(default="ns", validate_default=True)
    kind: Literal[METRIC_KINDS] | None = None  # type: ignore[valid-type]
    begin: str | None = None
    end: str | None = None
    fail: str | None = None

    @field_validator("sample", "begin", "end", "fail")
    @classmethod
    def _pattern(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None:
            pattern = compile_pattern(value)
            if info.field_name == "sample" and "value" not in pattern.groupindex:
                raise ValueError("needs a named group `value` with the number, e.g. 'lat=(?P<value>\\d+)'")
        return value

    @field_validator("metric")
    @classmethod
    def _named(cls, value: str | None, info: ValidationInfo) -> str | None:
        sample, metrics = info.data.get("sample"), info.data.get("metrics")
        if value is not None and metrics is not None and value not in metrics:
            raise ValueError(f"{value!r} is not one of `metrics` ({', '.join(metrics)})")
        if value is None and sample is not None and "metric" not in compile_pattern(sample).groupindex:
            if metrics is None or len(metrics) != 1:
                raise ValueError("name the metric: `sample` has no group `metric`, and `metrics` does not "
                                 "have exactly one name")
            return metrics[0]
        return value

    @field_validator("unit")
    @classmethod
    def _storable(cls, value: str, info: ValidationInfo) -> str:
        if value not in units.UNITS:
            raise ValueError(f"no unit {value!r}{units.closest(value)}: the units a sample can be stored in are {units.known()}")
        printed = _printed_units(info.data.get("sample") or "")
        if printed == []:
            raise ValueError(f"the group `unit` of `sample` matches no unit a sample can be stored in ({units.known()})")
        if printed and not any(units.convert(1, u, value) is not None for u in printed):
            quantity = units.UNITS[value].quantity
            raise ValueError(f"`sample` reads values in {', '.join(printed[:6])}, which do not convert into "
                             f"{value!r} ({quantity}): set `unit` to the one to store them in, e.g. {printed[0]!r}")
        return value


@PARSERS.register
class RegexParser(OutputParser):
    name: ClassVar[str] = "regex"
    summary: ClassVar[str] = "any guest: samples, begin, end and failures by the patterns you give"
    Options: ClassVar[type[BaseModel]] = RegexOptions

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        opts = self.options
        self._sample = compile_pattern(opts.sample)
        self._begin, self._end, self._fail = (compile_pattern(p) if p is not None else None
                                              for p in (opts.begin, opts.end, opts.fail))
        self.ends_itself = self._end is not None
        self._kind = opts.kind or units.default_kind(opts.unit)

    @classmethod
    def declared_metrics(cls, options: dict) -> tuple[str, ...] | None:
        opts = cls.Options.model_validate(options)
        if opts.metrics is not None:
            return tuple(opts.metrics)
        return None if opts.metric is None else (opts.metric,)

    def awaited_begin(self) -> str:
        if self._begin is not None:
            return f"{super().awaited_begin()} (no line matched `begin`)"
        return "sample of output 'regex' (no line matched `sample`; without `begin` the first sample begins)"

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
        events = [self._record(m.groupdict(), text, now_ns) for m in self._sample.finditer(text)]
        return next((e for e in events if e.kind != "SAMPLE"), events[-1] if events else None)

    def _record(self, groups: dict[str, str | None], text: str, now_ns: int) -> Event:
        began = self.began(now_ns)
        name = groups.get("metric") or self.options.metric
        printed = groups.get("unit") or self.options.unit
        value, t = _number(groups["value"]), _number(groups.get("t") or "0")
        stored = None if value is None else units.convert(value, printed, self.options.unit)
        if name is None or stored is None or t is None:
            return self.failed(f"no sample in {text!r}: its metric, value or t is missing or wrong, or its unit "
                               f"{printed!r} does not convert into the parser's `unit` {self.options.unit!r}")
        t_ns = now_ns if groups.get("t") is None else int(self.begin["t0"]) + round(t * 1e9)
        event = self.sample(name, stored, t_ns, units.stored_unit(self.options.unit), self._kind)
        return began or event


def _number(text: str | None) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None
