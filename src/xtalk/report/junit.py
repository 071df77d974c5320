"""The report's pass/fail checks (the KPI gates: sections.py) as JUnit XML for CI
pipelines: one testsuite per campaign, one testcase per check, a <failure> for each failed
one; a campaign with no gate gives an empty suite. Property elements carry the campaign
id and overall verdict."""
from __future__ import annotations

from xml.etree import ElementTree as ET

from .sections import Report


def junit_xml(report: Report) -> str:
    h = report.header
    checks = [c for s in report.computed() for c in s.checks]
    failures = sum(not c.passed for c in checks)
    suites = ET.Element("testsuites", name="xtalk", tests=str(len(checks)), failures=str(failures))
    suite = ET.SubElement(suites, "testsuite", name=f"xtalk.{h.campaign.get('name')}",
                          tests=str(len(checks)), failures=str(failures), errors="0", skipped="0")
    props = ET.SubElement(suite, "properties")
    for key, value in (("campaign", h.campaign.get("id")), ("overall", h.overall), ("path", h.path)):
        ET.SubElement(props, "property", name=key, value=str(value))
    for c in checks:
        case = ET.SubElement(suite, "testcase", classname=f"xtalk.{h.campaign.get('name')}.{c.group}", name=c.name)
        if not c.passed:
            fail = ET.SubElement(case, "failure", message=c.detail, type="GateFailed")
            fail.text = c.detail
        else:
            ET.SubElement(case, "system-out").text = c.detail
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
