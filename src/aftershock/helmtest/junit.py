"""JUnit XML for a helm-unittest run, shaped as helm-unittest's `-t JUnit` output.

One `<testsuite>` per suite that ran, one `<testcase>` per test: `<failure>` for a failed test,
`<error>` for one stopped by an error, `<skipped>` with the reason for a skipped one.
"""

from __future__ import annotations

import socket
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from aftershock.model.test_results import RunResult, SuiteResult, TestResult

JUNIT_PROPERTY = ("helm-unittest.version", "1.6")


def _flat(test: TestResult) -> str:
    """TestJobResult.StringifyToXmlAttribute: the explanation on one line."""
    parts = []
    if test.skipped:
        parts.append(f"SKIPPED '{test.name}' \n")
        if test.skip_reason:
            parts.append(f"{test.skip_reason}\n")
    if test.exec_error is not None:
        parts.append(f"{test.exec_error}\n")
    for assertion in test.assertions:
        parts.append(f"\t\t {assertion.title} \n")
        details = [assertion.skip_reason] if assertion.skipped else list(assertion.fail_info)
        parts += [f"\t\t\t {line} \n" for line in details]
    return "".join(parts).replace("\n", ",").replace("\t", "")


def _classname(suite_name: str) -> str:
    return suite_name.rsplit("/", 1)[-1]


def _testsuite(index: int, suite: SuiteResult, hostname: str, stamp: str) -> ET.Element:
    element = ET.Element(
        "testsuite",
        {
            "id": str(index),
            "tests": str(len(suite.tests)),
            "failures": "0",
            "errors": "0",
            "package": "",
            "time": f"{sum(t.seconds for t in suite.tests):.3f}",
            "name": suite.name,
            "timestamp": stamp,
            "hostname": hostname,
        },
    )
    properties = ET.SubElement(element, "properties")
    ET.SubElement(properties, "property", {"name": JUNIT_PROPERTY[0], "value": JUNIT_PROPERTY[1]})
    failures = errors = 0
    for test in suite.tests:
        case = ET.SubElement(
            element,
            "testcase",
            {"classname": _classname(suite.name), "name": test.name, "time": f"{test.seconds:.3f}"},
        )
        if test.skipped:
            ET.SubElement(case, "skipped", {"message": _flat(test)})
        elif not test.passed and test.exec_error is None:
            failures += 1
            ET.SubElement(case, "failure", {"message": "Failed", "type": ""}).text = _flat(test)
        elif not test.passed:
            errors += 1
            ET.SubElement(case, "error", {"message": "Error", "type": ""}).text = test.exec_error
    element.set("failures", str(failures))
    element.set("errors", str(errors))
    return element


def junit_xml(result: RunResult) -> str:
    """The report as XML text (no XML declaration, tab-indented, as upstream writes it)."""
    root = ET.Element("testsuites")
    hostname = socket.gethostname()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    ran = [suite for suite in result.suites() if suite.exec_error is None or suite.tests]
    for index, suite in enumerate(ran):
        root.append(_testsuite(index, suite, hostname, stamp))
    ET.indent(root, space="\t")
    return ET.tostring(root, encoding="unicode", short_empty_elements=False) + "\n"


def write_junit(result: RunResult, path: Path) -> None:
    path.write_text(junit_xml(result), encoding="utf-8")
