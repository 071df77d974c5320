"""`xtalk calibrate`'s bottom line (calibration/answer.py) and its rows' status
(calibration/steal.py): "recovered" only where the measured agrees with the injected and
an interval excludes zero; the sentence names the smallest effect the setup can see with
its runs and, where a steal was not recovered, why."""
import pytest

from xtalk.calibration.answer import sentence
from xtalk.calibration.steal import SLOPE_CHECK, check, share_status, slope_check


@pytest.mark.parametrize("share, lo, hi, status", [
    (9.7, 4.4, 16.5, "recovered"),
    (9.7, -11.3, 12.8, "not separated from zero"),   # holds the share, and no change too
    (9.7, 10.2, 16.5, "missed (outside the interval)"),
    (9.7, -3.0, 2.0, "missed (outside the interval)"),
])
def test_a_share_is_recovered_only_inside_an_interval_that_excludes_zero(share, lo, hi, status):
    assert share_status(share, lo, hi) == status


def test_checks_say_recovered_or_how_they_missed():
    assert check("steals seen (300 µs)", 500.0, 497.0, "steals")["status"] == "recovered"
    assert check("steals seen (300 µs)", 500.0, 412.0, "steals")["status"] == "missed"
    assert slope_check(None)["status"] == "no fit"


def result(checks: list[dict], mde: float | None = 12.3) -> dict:
    aa = {"metric": "qsort", "statistic": "median",
          "assessment": {"units": [5, 5], "verdict": "no-difference", "reason": "fewer than 2 reference runs"}}
    return {"checks": checks, "ok": all(c["ok"] for c in checks), "mde": mde, "unit": "%", "aa": aa}


def passed(name: str) -> dict:
    return {"name": name, "expected": "interference", "measured": "interference", "unit": "", "ok": True,
            "status": "recovered"}


AA_OK = {"name": "A/A: odd against even runs", "expected": "not different", "measured": "no-difference",
         "unit": "", "ok": True, "status": "no false alarm"}


def test_the_sentence_says_what_the_setup_can_see_and_that_the_steals_were_recovered():
    text = sentence(result([passed("verdict of the 1000 µs steal"), AA_OK]))
    assert text == ("This setup can see effects of ±12.3 % (qsort median) with 5 runs per configuration; "
                    "the injected steals were recovered.")


def test_the_sentence_says_why_a_steal_was_not_recovered():
    share = {"name": "stolen share added, 1000 µs (95% interval)", "expected": 9.72, "measured": "0.75 [-11.3, 12.8]",
             "unit": "points of the CPU", "ok": False, "status": "not separated from zero"}
    verdict = {"name": "verdict of the 1000 µs steal", "expected": "interference", "measured": "inconclusive",
               "unit": "", "ok": False, "status": "missed: inconclusive",
               "reason": "inconclusive (p=0.2; about 8 runs per side would decide it)"}
    seen = check("steals seen (300 µs)", 500.0, 412.0, "steals")
    slope = check(SLOPE_CHECK, 1.0, 1.2, "", missed="off scale (not within 5% of 1)")
    text = sentence(result([seen, slope, share, verdict, AA_OK], mde=235.0))
    assert text.startswith("This setup can see effects of ±235 % (qsort median) with 5 runs per configuration; "
                           "the injected steals were not recovered, because ")
    assert "steals seen (300 µs): missed (412 against 500 steals)" in text
    assert f"{SLOPE_CHECK}: off scale (not within 5% of 1) (1.2 against 1)" in text
    assert "the verdict of the 1000 µs steal was inconclusive (p=0.2; about 8 runs per side would decide it)" in text
    assert ("stolen share added, 1000 µs (95% interval): not separated from zero (0.75 [-11.3, 12.8] against 9.72 "
            "points of the CPU)") in text


def test_the_sentence_names_a_false_alarm_and_an_unknown_effect():
    alarm = dict(AA_OK, ok=False, measured="different", status="false alarm")
    text = sentence(result([passed("verdict of the 1000 µs steal"), alarm], mde=None))
    assert text.startswith("This setup's smallest detectable effect on qsort median is not known: the A/A gave none "
                           "(fewer than 2 reference runs); the injected steals were recovered; but the A/A runs")
    assert "false alarm" in text and text.endswith(".")


def test_the_sentence_says_when_the_machine_cannot_answer_with_its_numbers():
    machine = {"state": "cannot", "text": "cannot measure here: CPU 0 ran other work 31.2 % of each run (median "
                                          "31.2 %); busiest outside the run: PID 4242 (stress-ng, 30.1 % of the time "
                                          "watched)"}
    text = sentence(dict(result([passed("verdict of the 1000 µs steal"), AA_OK]), machine=machine))
    assert text.endswith(f"the injected steals were recovered; but this machine cannot answer for any of it "
                         f"({machine['text']}).")
    assert "cannot answer" not in sentence(dict(result([AA_OK]), machine=dict(machine, state="doubtful")))


def test_calibrate_keeps_the_machine_line_of_the_campaign_that_could_answer_least():
    from xtalk.calibration.calibrate import worst_machine
    lines = [{"state": "measurable"}, {"state": "cannot", "text": "x"}, {"state": "doubtful"}]
    assert worst_machine(*lines)["state"] == "cannot" and worst_machine(*lines[::2])["state"] == "doubtful"
