"""The instrument's lines and table (report/instrument.py): lost responses named with
their times, the run summary's count, no section without an instrument."""
from xtalk.report.instrument import instrument_brief, instrument_table, lost_words

FACTS = {"kind": "sigrok", "metric": "irq_latency", "stimulus": "D0 rising", "response": "D1 both",
         "samplerate_hz": 1e6, "resolution_ns": 1000.0, "stimuli": 700, "answered": 696, "lost": 4,
         "lost_t_s": [0.0125, 1.5, 2.25, 3.0], "unexpected_responses": 0, "align_ns": 120_000_000}


def test_lost_responses_are_named_with_their_first_times():
    assert lost_words(FACTS) == "4 lost responses (at 0.0125, 1.5, 2.25, ... s)"
    assert lost_words(dict(FACTS, lost=1, lost_t_s=[0.5])) == "1 lost response (at 0.5 s)"
    assert lost_words(dict(FACTS, lost=0, lost_t_s=[])) == "no lost response"


def test_the_table_has_a_row_per_run_with_an_instrument_and_the_brief_counts_them():
    res = {"runs": [{"run_id": "solo-r1", "instrument": FACTS}, {"run_id": "solo-r2"},
                    {"run_id": "same-core-r1", "instrument": dict(FACTS, lost=0, lost_t_s=[], stimuli=300)}]}
    table = instrument_table(res)
    assert [row[0] for row in table.rows] == ["solo-r1", "same-core-r1"]
    assert table.rows[0][3] == "1 µs" and table.rows[0][6].startswith("4 lost responses")
    assert instrument_brief(res) == ["instrument: 4 lost responses of 1,000 stimuli in 1 of 2 runs (solo-r1)"]
