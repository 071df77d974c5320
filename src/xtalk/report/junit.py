"""KPI gates as JUnit XML for CI pipelines: one testsuite per campaign, one testcase
per (gate, configuration), a <failure> for each failed gate; a campaign with no gate
gives an empty suite. Property elements carry the campaign id and overall verdict."""
from __future__ import annotations

from xml.etree import ElementTree as ET


def junit_xml(res: dict) -> str:
    gates = res["gates"]
    failures = sum(not g["passed"] for g in gates)
    suites = ET.Element("testsuites", name="xtalk", tests=str(len(gates)), failures=str(failures))
    suite = ET.SubElement(suites, "testsuite", name=f"xtalk.{res['campaign'].get('name')}",
                          tests=str(len(gates)), failures=str(failures), errors="0", skipped="0")
    props = ET.SubElement(suite, "properties")
    for key, value in (("campaign", res["campaign"].get("id")), ("overall", res["overall"]),
                       ("path", res.get("path"))):
        ET.SubElement(props, "property", name=key, value=str(value))
    for g in gates:
        limit = ", ".join(f"{k}={v}" for k, v in g["gate"].items() if k not in ("metric", "stat"))
        case = ET.SubElement(suite, "testcase", classname=f"xtalk.{res['campaign'].get('name')}.{g['metric']}",
                             name=f"{g['stat']} [{g['config_id']}] {limit}")
        if not g["passed"]:
            fail = ET.SubElement(case, "failure", message=g["detail"], type="GateFailed")
            fail.text = g["detail"]
        else:
            ET.SubElement(case, "system-out").text = g["detail"]
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
