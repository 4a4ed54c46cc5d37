"""The HTML explorer: one offline file, opened in headless Chromium, clicked, read back and photographed.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no extra
package). Without /usr/bin/chromium (Debian's `chromium` package) the browser tests skip.
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import shutil
import struct
import subprocess
import time
from pathlib import Path

import pytest

from aftershock.graph import blast_radius, build_graph, document_path
from aftershock.pipeline import ReviewRequest, review_change, run_review
from aftershock.provenance.document import provenance_edges
from aftershock.report.canonical import review_document
from aftershock.report.html import render_html
from aftershock.report.reading import readable_document
from charts import app_chart
from gitrepo import commit, make_repo

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK),
    reason="headless Chromium is missing: apt-get update && apt-get install -y chromium",
)
WORKLOAD = "workload:charts/apps/orders::apps/Deployment/orders/orders"
ORDERS_DEPLOYMENT = "object:charts/apps/orders::apps/Deployment/orders/orders"
STALE_TEST = "runs two replicas by default"
ASSETS = Path(__file__).resolve().parents[2] / "src" / "aftershock" / "report" / "html_assets"
HOSTILE = "</script><script>document.body.dataset.pwned = 'yes'</script>"


def page_doc(page: Path) -> dict:
    """The review document a page embeds."""
    text = page.read_text(encoding="utf-8")
    start = text.index('id="aftershock-data">') + len('id="aftershock-data">')
    return json.loads(text[start : text.index("</script>", start)])


def explorer_html(review) -> str:
    return render_html(review_document(review))


@pytest.fixture(scope="module")
def lib_review(example_repo, renderer):
    request = ReviewRequest(
        repo=example_repo, base="state-01-orders-replicas", head="state-02-lib-part-of-label"
    )
    return run_review(request, renderer)


@pytest.fixture(scope="module")
def lib_radius(lib_review):
    return blast_radius(build_graph(lib_review, provenance_edges(lib_review.provenance)))


@pytest.fixture(scope="module")
def lib_page(lib_review, tmp_path_factory) -> Path:
    page = tmp_path_factory.mktemp("explorer") / "lib.html"
    page.write_text(explorer_html(lib_review), encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def replicas_doc(example_repo, renderer) -> dict:
    """The review of state-00..state-01 (orders runs 3 replicas) with its test evidence and findings."""
    request = ReviewRequest(
        repo=example_repo, base="state-00-initial", head="state-01-orders-replicas"
    )
    result = review_change(request, renderer)
    return review_document(result.review, result.judgement)


@pytest.fixture(scope="module")
def replicas_page(replicas_doc, tmp_path_factory) -> Path:
    page = tmp_path_factory.mktemp("explorer") / "replicas.html"
    page.write_text(render_html(replicas_doc), encoding="utf-8")
    return page


class DevTools:
    """A headless Chromium and one page, spoken to in DevTools protocol messages ending in NUL."""

    def __init__(self, profile: Path) -> None:
        to_browser, self._commands = os.pipe()
        self._events, from_browser = os.pipe()
        # bash (dash takes one-digit descriptors only) puts the pipes on the descriptors 3 and 4 that --remote-debugging-pipe reads and writes.
        script = f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}'
        args = [
            "bash",
            "-c",
            script,
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={profile}",
            "--remote-debugging-pipe",
        ]
        self._log = profile / "chromium.log"
        with self._log.open("wb") as log:
            self._process = subprocess.Popen(
                args,
                pass_fds=(to_browser, from_browser),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next = b"", 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
            page=True,
        )

    def call(self, method: str, params: dict, *, page: bool = False, timeout: float = 30.0) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if page:
            message["sessionId"] = self._session
        try:
            os.write(self._commands, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise AssertionError(
                f"Chromium exited: {self._log.read_text(errors='replace').splitlines()[-5:]}"
            ) from None
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply["result"]

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select(
                [self._events], [], [], max(0.0, deadline - time.monotonic())
            )
            chunk = os.read(self._events, 1 << 20) if ready else b""
            if not chunk:
                tail = self._log.read_text(errors="replace").splitlines()[-5:]
                raise AssertionError(f"Chromium did not answer in time (or exited): {tail}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def evaluate(self, expression: str):
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, page=True
        )
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def open(self, url: str) -> None:
        self.call("Page.navigate", {"url": url}, page=True)
        deadline = time.monotonic() + 20
        while (
            self.evaluate(
                "document.readyState === 'complete' && document.body && document.body.dataset.ready"
            )
            != "true"
        ):
            assert time.monotonic() < deadline, "the explorer did not finish loading"
            time.sleep(0.05)

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the centre of the element, scrolled into view;
        a graph node outside the graph's box is first brought in as a user would, with Fit."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " const g = document.getElementById('graph');"
            " if (g && g.contains(e)) { const r = e.getBoundingClientRect(), b = g.getBoundingClientRect();"
            "  if (r.left < b.left || r.right > b.right || r.top < b.top || r.bottom > b.bottom)"
            "   g.querySelector('.zoom button').click(); }"
            " e.scrollIntoView({block: 'center', inline: 'nearest'}); const r = e.getBoundingClientRect();"
            " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()"
        )
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1},
                page=True,
            )

    def screenshot(self) -> bytes:
        return base64.b64decode(
            self.call("Page.captureScreenshot", {"format": "png"}, page=True)["data"]
        )

    def close(self) -> None:
        try:
            self.call("Browser.close", {}, timeout=10)
        except AssertionError:
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._commands)
        os.close(self._events)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip("headless Chromium is missing: apt-get update && apt-get install -y chromium")
    tools = DevTools(tmp_path_factory.mktemp("chromium-profile"))
    yield tools
    tools.close()


def selector(node_id: str) -> str:
    return f'g.node[data-id="{node_id}"]'


def classes(browser: DevTools, node_id: str) -> set[str]:
    return set(
        browser.evaluate(
            f"document.querySelector({json.dumps(selector(node_id))}).getAttribute('class')"
        ).split()
    )


def test_the_file_is_self_contained_and_loads_nothing(lib_page):
    text = lib_page.read_text()
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text, re.I)
    assert "@import" not in text and "fetch(" not in text and "XMLHttpRequest" not in text
    assert '<script type="application/json" id="aftershock-data">' in text


@needs_chromium
def test_a_click_highlights_causes_and_effects_and_shows_the_field_diff(
    browser, lib_page, lib_radius, tmp_path
):
    browser.open(lib_page.as_uri())
    assert browser.evaluate("document.querySelectorAll('g.node').length") > 20
    assert (
        browser.evaluate("document.querySelector('svg').classList.contains('has-selection')")
        is False
    )
    browser.click(selector(WORKLOAD))
    assert "selected" in classes(browser, WORKLOAD)
    for upstream in (
        "template:charts/library/platform-lib/templates/_labels.tpl",
        "chart:charts/library/platform-lib",
        "chart:charts/apps/orders",
        "object:charts/apps/orders::core/ConfigMap/orders/orders",
    ):
        assert "cause" in classes(browser, upstream), upstream
    assert "effect" in classes(browser, "namespace:orders")
    assert "dim" in classes(
        browser, "workload:charts/apps/payments::apps/Deployment/payments/payments"
    )
    panel = browser.evaluate("document.getElementById('panel').textContent")
    assert "Why it is affected" in panel and 'metadata.labels["app.kubernetes.io/part-of"]' in panel
    # the path, rebuilt from each node's last step (`via`, by node index), root first, its edges
    # drawn bold: the radius's path
    nodes = {n["id"]: n for n in readable_document(page_doc(lib_page))["graph"]["nodes"]}
    path, kinds = document_path(nodes, WORKLOAD)
    assert path == list(lib_radius.get(WORKLOAD).nodes)
    steps = browser.evaluate(
        "[...document.querySelectorAll('#panel ol.path li')].map((li) => li.textContent)"
    )
    labels = [f"{nodes[i]['kind'].replace('_', ' ')} {nodes[i]['label']}" for i in path]
    assert steps == labels[:1] + [f"{k} → {text}" for k, text in zip(kinds, labels[1:])]
    assert kinds[:2] == ["touches", "maps_to"] and len(steps) == nodes[WORKLOAD]["distance"] + 1
    assert browser.evaluate("document.querySelectorAll('path.edge.on-path').length") == len(kinds)
    assert browser.evaluate("location.hash") == "#node=" + browser.evaluate(
        f"encodeURIComponent({json.dumps(WORKLOAD)})"
    )
    png = browser.screenshot()
    (tmp_path / "explorer.png").write_bytes(png)
    if os.environ.get("AFTERSHOCK_SCREENSHOTS"):
        Path(os.environ["AFTERSHOCK_SCREENSHOTS"]).joinpath("explorer.png").write_bytes(png)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    assert struct.unpack(">II", png[16:24]) == (1600, 1000)


@needs_chromium
def test_the_explorer_reads_the_graph_by_the_documents_rules(
    browser, example_repo, renderer, tmp_path
):
    """The page embeds the graph as the document writes it (nodes by index, values keys by their
    values_changes entries, files by their files entries); the explorer writes it out as
    aftershock's own reader does, and shows a values key as its entry says."""
    request = ReviewRequest(repo=example_repo, base="demo-base", head="demo-head")
    page = tmp_path / "demo.html"
    page.write_text(explorer_html(run_review(request, renderer)), encoding="utf-8")
    section = page_doc(page)["graph"]
    assert all(isinstance(e[0], int) for e in section["edges"]) and section["values_key_edges_at"]
    browser.open(page.as_uri())
    graph = browser.evaluate(
        "explorerDocument(JSON.parse(document.getElementById('aftershock-data').textContent)).graph"
    )
    assert graph == readable_document(page_doc(page))["graph"]
    assert len(graph["edges"]) > len(section["edges"])
    key = next(n for n in graph["nodes"] if n["kind"] == "values_key")
    browser.click(selector(key["id"]))
    panel = browser.evaluate("document.getElementById('panel').textContent")
    assert key["label"] in panel and f"file{key['facts']['file']}" in panel
    assert "maps_to → " in panel  # its path: reached through its file
    if os.environ.get("AFTERSHOCK_SCREENSHOTS"):
        Path(os.environ["AFTERSHOCK_SCREENSHOTS"]).joinpath("values-key.png").write_bytes(
            browser.screenshot()
        )


@needs_chromium
def test_an_object_says_the_scenarios_that_changed_it_alike(browser, lib_page, tmp_path):
    """The default scenario's entry stands for the scenarios whose change is the same: its panel
    names them."""
    browser.open(lib_page.as_uri())
    browser.click(selector(ORDERS_DEPLOYMENT))
    rows = browser.evaluate(
        "[...document.querySelectorAll('#panel tr')].map((tr) => [...tr.cells].map((c) => c.textContent))"
    )
    assert ["render", "charts/apps/orders"] in rows
    assert [
        "changed alike in",
        "toggle:autoscaling.enabled=true, toggle:ingress.enabled=false, toggle:serviceAccount.create=false",
    ] in rows
    png = browser.screenshot()
    (tmp_path / "object.png").write_bytes(png)
    if os.environ.get("AFTERSHOCK_SCREENSHOTS"):
        Path(os.environ["AFTERSHOCK_SCREENSHOTS"]).joinpath("object.png").write_bytes(png)


@needs_chromium
def test_search_marks_matches_and_enter_selects_one(browser, lib_page):
    browser.open(lib_page.as_uri())
    browser.evaluate(
        "(() => { const s = document.getElementById('search'); s.value = 'payments/payments';"
        " s.dispatchEvent(new Event('input')); })()"
    )
    matched = browser.evaluate(
        "[...document.querySelectorAll('g.node.match')].map(g => g.dataset.id)"
    )
    assert matched and all("payments/payments" in m for m in matched)
    assert (
        browser.evaluate("document.getElementById('search-count').textContent")
        == f"{len(matched)} matches"
    )
    browser.evaluate(
        "document.getElementById('search').dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}))"
    )
    assert browser.evaluate("document.querySelector('g.node.selected').dataset.id") == matched[0]


@needs_chromium
def test_repository_text_cannot_inject_markup_or_script(tmp_path, renderer, browser):
    repo = make_repo(tmp_path)
    base = commit(repo, app_chart("charts/web", "web"), "feat: web")
    commit(
        repo,
        {"charts/web/values.yaml": "replicas: 3\nimage: nginx:1.27.0\nmode: fast\n"},
        f"fix: {HOSTILE}",
    )
    page = tmp_path / "hostile.html"
    text = explorer_html(run_review(ReviewRequest(repo=repo, base=base), renderer))
    assert HOSTILE not in text
    page.write_text(text, encoding="utf-8")
    browser.open(page.as_uri())
    commit_id = browser.evaluate("document.querySelector('g.node.kind-commit').dataset.id")
    browser.click(selector(commit_id))
    assert browser.evaluate("document.body.dataset.pwned") is None
    assert HOSTILE in browser.evaluate("document.getElementById('panel').textContent")


@needs_chromium
def test_a_secret_shows_only_its_redacted_size(example_repo, renderer, browser, tmp_path):
    request = ReviewRequest(
        repo=example_repo,
        base="state-05-node-metrics-process-collector",
        head="state-06-payments-webhook-key",
    )
    page = tmp_path / "secret.html"
    page.write_text(explorer_html(run_review(request, renderer)), encoding="utf-8")
    assert "whk-" not in page.read_text()
    secret = "object:charts/apps/payments::core/Secret/payments/payments"
    browser.open(page.as_uri())
    browser.click(selector(secret))
    panel = browser.evaluate("document.getElementById('panel').textContent")
    assert (
        "data.WEBHOOK_SIGNING_KEY" in panel
        and "‹redacted, 20 bytes›" in panel
        and "whk-" not in panel
    )
    guard = browser.evaluate("""(() => { const g = document.querySelector('#panel .guard[data-field="data.WEBHOOK_SIGNING_KEY"]');
        return {unguarded: g.classList.contains('unguarded'), text: g.textContent}; })()""")
    assert (
        guard["unguarded"]
        and "<redacted, 20 bytes>" in guard["text"]
        and "whk-" not in guard["text"]
    )
    browser.click("#tests-button")
    assert "whk-" not in browser.evaluate("document.getElementById('panel').textContent")


def test_the_header_lists_a_few_parts_not_reviewed_and_keeps_the_rest_folded(replicas_doc):
    fetch = "run `aftershock charts fetch --repo . --chart-cache DIR apps/a`"
    gaps = [
        {"part": f"dependency d{i} 1.0.0 of chart apps/a", "side": None, "reason": fetch}
        for i in range(3)
    ] + [{"part": f"chart apps/c{i}", "side": "head", "reason": "it fails"} for i in range(6)]
    page = render_html({**replicas_doc, "not_reviewed": gaps})
    warning = page[page.index('<div class="warning">') :]
    warning = warning[: warning.index("</div>")]
    shown, folded = warning.split("<details>")
    assert shown.count("<li>") == 4 and folded.count("<li>") == 3
    assert "<b>dependencies d0 1.0.0, d1 1.0.0, d2 1.0.0 of chart apps/a</b>" in shown
    assert "<summary>3 more</summary>" in folded
    few = render_html({**replicas_doc, "not_reviewed": gaps[4:]})  # five: all shown, never "1 more"
    assert "<details>" not in few[few.index('<div class="warning">') :].split("</div>")[0]


def test_the_header_counts_the_tests_and_says_when_they_did_not_run(replicas_doc):
    summary = replicas_doc["tests"]["summary"]
    assert summary["tests"]["newly_failing"] == 1 and summary["problems"]["stale"] == 1
    button = re.search(
        r'<button id="tests-button"[^>]*>([^<]*)</button>', render_html(replicas_doc)
    )
    assert button and button.group(1) == "Tests: 5 tests · 1 newly failing · 1 stale"
    untested = render_html({**replicas_doc, "tests": None})
    assert 'id="tests-button"' not in untested and "tests not run" in untested


def test_the_scripts_write_no_markup():
    for script in ASSETS.glob("*.js"):
        text = script.read_text()
        for sink in (
            r"\.innerHTML\b",
            r"\.outerHTML\b",
            r"insertAdjacentHTML\(",
            r"document\.write",
            r"\beval\(",
            r"\bFunction\(",
        ):
            assert not re.search(sink, text), f"{script.name} uses {sink}"


@needs_chromium
def test_the_object_panel_shows_the_guard_map_with_the_stale_assertion(
    browser, replicas_page, tmp_path
):
    browser.open(replicas_page.as_uri())
    marker = browser.evaluate(
        f"document.querySelector({json.dumps(selector(ORDERS_DEPLOYMENT) + ' .test-marker')})?.getAttribute('class')"
    )
    assert marker == "test-marker severe"
    browser.click(selector(ORDERS_DEPLOYMENT))
    guard = browser.evaluate("""(() => {
        const g = document.querySelector('#panel .guard[data-field="spec.replicas"]');
        g.scrollIntoView({block: 'start'});
        return {text: g.textContent, unguarded: g.classList.contains('unguarded'),
                pins: [...g.querySelectorAll('li.pin')].map(li => ({test: li.querySelector('.test-name').textContent,
                    badges: [...li.querySelectorAll(':scope > .badge')].map(b => b.textContent),
                    failure: li.querySelector('pre.failure')?.textContent ?? null}))};
    })()""")
    assert guard["unguarded"] is False
    pinned = {pin["test"]: pin for pin in guard["pins"]}
    assert set(pinned) == {
        STALE_TEST,
        "leaves the replica count to the autoscaler when autoscaling is enabled",
    }
    assert pinned[STALE_TEST]["badges"] == ["exact", "fails at head", "stale"]
    assert pinned[STALE_TEST]["failure"] == "asserts[0] equal spec.replicas: expected 2, got 3"
    other = pinned["leaves the replica count to the autoscaler when autoscaling is enabled"]
    assert "stale" not in other["badges"] and "under its own values" in other["badges"]
    panel = browser.evaluate("document.getElementById('panel').textContent")
    assert "Test guards (1 of 1 changed field(s) pinned)" in panel
    assert (
        "Stale and vacuous assertions (1)" in panel
        and "still expects 2, the base value; head renders 3" in panel
    )
    row_mark = browser.evaluate(
        "[...document.querySelectorAll('#panel table.fields .badge')].map(b => b.textContent)"
    )
    assert row_mark == ["stale"]
    png = browser.screenshot()
    (tmp_path / "guards.png").write_bytes(png)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


@needs_chromium
def test_the_header_button_opens_the_test_summary(browser, replicas_page):
    browser.open(replicas_page.as_uri())
    browser.click(selector(ORDERS_DEPLOYMENT))
    browser.click("#tests-button")
    assert browser.evaluate("document.querySelector('g.node.selected')") is None
    assert browser.evaluate("location.hash") == "#tests"
    failing = browser.evaluate(
        "[...document.querySelectorAll('#panel .test.newly_failing')].map(d => d.textContent)"
    )
    assert len(failing) == 1 and STALE_TEST in failing[0] and "expected 2, got 3" in failing[0]
    panel = browser.evaluate("document.getElementById('panel').textContent")
    assert (
        panel.startswith("Tests")
        and "changed fields pinned1 of 1" in panel
        and "4 test(s) passing at head, not run at base: not compared." in panel
    )
    browser.click("#panel .problem.stale a[data-target]")
    assert (
        browser.evaluate("document.querySelector('g.node.selected').dataset.id")
        == ORDERS_DEPLOYMENT
    )


@needs_chromium
def test_test_names_and_failures_cannot_inject_markup(browser, replicas_doc, tmp_path):
    doc = json.loads(json.dumps(replicas_doc))
    chart = doc["tests"]["charts"][0]
    chart["tests"][0]["test"] = HOSTILE
    chart["tests"][0]["head"]["failure"] = HOSTILE
    for pin in chart["guards"][0]["pins"]:
        pin["assertion"]["test"] = HOSTILE
    chart["problems"][0]["detail"] = HOSTILE
    page = tmp_path / "hostile-tests.html"
    page.write_text(render_html(doc), encoding="utf-8")
    assert HOSTILE not in page.read_text()
    browser.open(page.as_uri())
    browser.click(selector(ORDERS_DEPLOYMENT))
    assert browser.evaluate("document.body.dataset.pwned") is None
    assert HOSTILE in browser.evaluate("document.querySelector('#panel .guard').textContent")
    browser.click("#tests-button")
    assert browser.evaluate("document.body.dataset.pwned") is None
    assert browser.evaluate("document.querySelectorAll('#panel script').length") == 0
    assert HOSTILE in browser.evaluate(
        "document.querySelector('#panel .test.newly_failing pre.failure').textContent"
    )


@needs_chromium
def test_the_review_column_shows_verdicts_findings_and_tests_and_a_finding_selects_its_object(
    browser, replicas_page, replicas_doc, tmp_path
):
    """The page opens on the verdicts (visible without scrolling at 1600x1000) and the whole graph fitted;
    a click on a finding, or Enter on it, highlights the object it is about."""
    browser.open(replicas_page.as_uri())
    verdict = browser.evaluate(
        "(() => { const r = document.querySelector('#verdicts .verdict').getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, text: document.getElementById('verdicts').textContent}; })()"
    )
    merge = replicas_doc["findings"]["verdicts"]["merge"]
    assert (
        verdict["top"] >= 0
        and verdict["bottom"] <= 1000
        and merge["label"] in verdict["text"]
        and "Merge risk" in verdict["text"]
    )
    # Fitted whole, this graph of seven layers would be a third of its size: it opens readable, from
    # its first layer (the commits) at the box's left edge, and Fit shows it whole.
    opened = browser.evaluate(
        "(() => { const v = document.getElementById('viewport');"
        " const g = v.getBoundingClientRect(), box = document.getElementById('graph').getBoundingClientRect();"
        " return [v.getAttribute('transform').endsWith('scale(0.6)'), Math.abs(g.left - box.left) < 30,"
        " box.right <= 1600]; })()"
    )
    assert opened == [True, True, True]
    browser.evaluate("document.querySelector('#graph .zoom button').click()")
    fitted = browser.evaluate(
        "(() => { const g = document.getElementById('viewport').getBoundingClientRect();"
        " const box = document.getElementById('graph').getBoundingClientRect();"
        " return [g.left >= box.left - 1, g.right <= box.right + 1]; })()"
    )
    assert fitted == [True, True]
    assert (
        browser.evaluate("document.querySelectorAll('#review-tests .test.newly_failing').length")
        == 1
    )
    finding = 'button.finding[data-fingerprint="{}"]'.format(
        next(
            i["fingerprint"]
            for i in replicas_doc["findings"]["items"]
            if i["rule"] == "tests-stale-assertion"
        )
    )
    browser.click(finding)
    assert "selected" in classes(browser, ORDERS_DEPLOYMENT)
    assert "dim" in classes(browser, "namespace:orders") or "cause" not in classes(
        browser, "namespace:orders"
    )
    assert "Chart test asserts the old render" in browser.evaluate(
        "document.getElementById('panel').textContent"
    )
    png = browser.screenshot()
    (tmp_path / "review.png").write_bytes(png)
    if os.environ.get("AFTERSHOCK_SCREENSHOTS"):
        Path(os.environ["AFTERSHOCK_SCREENSHOTS"]).joinpath("review.png").write_bytes(png)
    assert struct.unpack(">II", png[16:24]) == (1600, 1000)
    browser.evaluate("document.body.click()")
    browser.evaluate(f"document.querySelector({json.dumps(finding)}).focus()")
    browser.call(
        "Input.dispatchKeyEvent",
        {"type": "keyDown", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13},
        page=True,
    )
    browser.call(
        "Input.dispatchKeyEvent",
        {"type": "keyUp", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13},
        page=True,
    )
    assert "selected" in classes(browser, ORDERS_DEPLOYMENT)


@needs_chromium
def test_the_graph_pans_and_zooms_from_the_keyboard(browser, lib_page):
    browser.open(lib_page.as_uri())
    before = browser.evaluate("document.getElementById('viewport').getAttribute('transform')")
    browser.evaluate("document.getElementById('graph').focus()")
    for key in ("+", "ArrowLeft"):
        browser.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": key}, page=True)
    zoomed = browser.evaluate("document.getElementById('viewport').getAttribute('transform')")
    assert zoomed != before
    browser.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "0"}, page=True)
    fitted = browser.evaluate("document.getElementById('viewport').getAttribute('transform')")
    assert fitted not in (before, zoomed)  # the whole graph, smaller than it opened
    assert browser.evaluate(
        "(() => { const g = document.getElementById('viewport').getBoundingClientRect();"
        " const box = document.getElementById('graph').getBoundingClientRect();"
        " return g.left >= box.left - 1 && g.right <= box.right + 1; })()"
    )
    assert browser.evaluate("document.querySelector('g.node').getAttribute('tabindex')") == "0"


@needs_chromium
def test_findings_that_say_the_same_thing_are_one_card(browser, replicas_doc, tmp_path):
    """As in the comment: three Deployments that each lack a digest are one card naming them."""
    doc = json.loads(json.dumps(replicas_doc))
    template = next(i for i in doc["findings"]["items"] if i["actionable"])
    items = []
    for name in ("a", "b", "c"):
        display = f"Deployment.apps default/{name}"
        items.append(
            {
                **template,
                "fingerprint": f"{name}{template['fingerprint']}",
                "subject": {**template["subject"], "display": display},
                "message": f"{display} runs an image without a digest",
            }
        )
    doc["findings"]["items"] = items
    page = tmp_path / "grouped.html"
    page.write_text(render_html(doc), encoding="utf-8")
    browser.open(page.as_uri())
    cards = browser.evaluate(
        "[...document.querySelectorAll('#findings .finding .finding-subject')].map(s => s.textContent)"
    )
    assert cards == [
        "3 objects: Deployment.apps default/a, Deployment.apps default/b, Deployment.apps default/c"
    ]
    assert browser.evaluate("document.querySelector('#findings h3').textContent") == "Concerns (3)"
