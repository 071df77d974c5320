"""The one formatter: numbers without exponents, shares that cannot exceed 100 %, counts
and rates in their own unit, a maximum called a WCET only where it is a time."""
from xtalk.analysis import wording


def test_numbers_have_three_digits_and_no_exponent():
    assert [wording.num(v) for v in (0.0123, 4.56, 163.4, 999.7, 12_345, 2_574_966)] == \
        ["0.0123", "4.56", "163", "1,000", "12,345", "2,574,966"]
    assert wording.num(0.00012) == "0.00012" and wording.num(163.4, signed=True) == "+163"
    assert wording.percent(-18847.6) == "-18,848 %" and "e+" not in wording.percent(1.6e2)


def test_shares_are_capped_at_100_percent():
    assert wording.share(100.1) == "100 %" and wording.share(-0.2) == "0 %" and wording.share(42.0) == "42 %"
    assert wording.value(1.002, "share", None) == "100 % of the CPU"


def test_counts_and_rates_keep_their_unit_times_are_times():
    assert wording.value(2_574_966.0, "ticks", 0.5, "count") == "2,574,966 count"
    assert wording.value(12_052.0, "ticks", 0.5, "MB/s") == "12,052 MB/s"
    assert wording.value(20_000.0, "ticks", 0.5, "cycles") == "10 µs"
    assert wording.stat_label("max", "max", "count") == "max" and wording.stat_label("max", "max", "cycles") == "max (WCET)"
    assert wording.times(188.476) == "188×"


def test_times_pick_their_unit_after_rounding():
    assert [wording.duration(v) for v in (76.0, 999.7, 11_374.0, 2.5e6, 1.234e12)] == \
        ["76 ns", "1 µs", "11.4 µs", "2.5 ms", "1,234 s"]


def test_a_ratio_past_x4_or_under_a_quarter_is_told_as_a_factor_with_a_finite_interval():
    from xtalk.analysis.wording import change, change_size, floor_text
    wide = {"scale": "log", "change_pct": 628.0, "ci95_pct": [-93.8, 85959.0], "stat_unit": "ticks"}
    assert change(wide) == "×7.28 [×0.062, ×861]" and change_size(wide) == "×7.28"
    usual = {"scale": "log", "change_pct": 12.0, "ci95_pct": [8.0, 16.0], "stat_unit": "ticks"}
    assert change(usual) == "+12 % [+8, +16]"
    drifted = dict(wide, noise_floor_pct=4615575.0, level="campaigns")
    assert floor_text(drifted).startswith("×46,157 either way: its campaigns differ so much") and "%" not in \
        floor_text(drifted)
    assert floor_text(dict(usual, noise_floor_pct=2.1)) == "±2.1 %"
