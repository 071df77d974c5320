"""report/markdown.py: the spec's description, the user's text, is shown as text."""
from xtalk.report.markdown import document
from xtalk.report.headline import headline
from xtalk.report.sections import Header, Report

EMPTY = {"runs": [], "left_out": [], "verdicts": [], "overhead": [], "boards": [], "stats": [], "deadlines": [],
         "gates": [], "overall": "PASS", "campaign": {"id": "t-1"}}


def test_the_description_keeps_no_html_or_terminal_escapes():
    description = "<script>alert(1)</script> \x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x1b\\ a\u202eb & c"
    header = Header("xtalk report: t", {"id": "t-1"}, description, "PASS", 1, "", False, True, headline(EMPTY))
    md = document(Report(header, [], {}), [], [])
    line = md.split("\n\n")[2]
    assert line == "&lt;script&gt;alert(1)&lt;/script&gt; red link ab &amp; c"
    assert "\x1b" not in md and "<script>" not in md
