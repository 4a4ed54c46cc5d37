// aftershock explorer, tests part: the guard map of a changed object (the assertions pinning each changed
// field, the stale and vacuous ones) and the test summary. It reads only the document's `tests` section;
// every text goes through textContent (ui.el), nothing is fetched.
function explorerTests(ui) {
  "use strict";
  const T = ui.DOC.tests || null;
  const { el, panel, section, table, link, byId } = ui;
  const charts = T ? T.charts : [];
  const human = (s) => s.replace(/_/g, " ");
  const refKey = (a) => [a.suite_file, a.test, a.index, a.template, a.document_index].join("\u0000");
  const isProblem = (p) => p.kind === "stale" || p.kind === "vacuous";

  // Guards and problems per object as the graph names it: "<chart>::<object key id>" (the default render,
  // the only one the suites are compared with).
  const byObject = new Map();
  const entry = (chart, object) => {
    const ref = `${chart.chart}::${object}`;
    if (!byObject.has(ref)) byObject.set(ref, { chart, guards: [], problems: [] });
    return byObject.get(ref);
  };
  for (const c of charts) {
    for (const g of c.guards) entry(c, g.object).guards.push(g);
    for (const p of c.problems) if (p.object !== null) entry(c, p.object).problems.push(p);
  }
  const comparison = (chart, a) => chart.tests.find((t) => t.suite_file === a.suite_file && t.test === a.test);

  // ---- small pieces ----
  const badge = (text, tone) => el("span", { class: `badge ${tone}` }, text);
  const assertionText = (a) => `${a.negated ? "not " : ""}${a.type}${a.path ? " " + a.path : ""}`;
  const fieldName = (field) => (field ? field : "the whole object");
  const append = (...nodes) => nodes.forEach((node) => panel.appendChild(node));
  const objectLink = (chart, object) => {
    const id = `object:${chart.chart}::${object}`;
    return byId.has(id) ? link(id) : el("span", { class: "field-path" }, object);
  };
  const assertionBlock = (chart, a) => {
    const div = el("div", { class: "assertion" });
    div.appendChild(el("div", { class: "test-name" }, a.test));
    div.appendChild(el("div", { class: "edge-kind" }, `${a.suite_file} · asserts[${a.index}] · ${assertionText(a)}`));
    const test = comparison(chart, a);
    if (test) {
      const tone = test.change === "newly_failing" || test.change === "still_failing" ? "danger" : "muted";
      div.appendChild(badge(human(test.change), tone));
      if (test.head && test.head.failure) div.appendChild(el("pre", { class: "failure" }, test.head.failure));
    }
    return div;
  };

  // ---- an object's guard map, in its side panel ----
  function objectGuards(n) {
    if (!T) return;
    const obj = (ui.DOC.objects || []).find((o) => o.id === n.ref);
    if (!obj) return;
    if (obj.review !== obj.chart) {
      section("Tests");
      append(el("p", { class: "hint" }, "The chart's tests are compared with its default render only, not with this one."));
      return;
    }
    if (T.untested_charts.includes(obj.chart)) {
      section("Tests");
      append(el("p", { class: "warn-note" }, `${obj.chart} has no helm-unittest suites: no changed field is guarded by a test.`));
      return;
    }
    const found = byObject.get(n.ref);
    if (!found) return;
    const pinned = found.guards.filter((g) => g.pins.some((p) => p.same_value)).length;
    section(`Test guards (${pinned} of ${found.guards.length} changed field(s) pinned)`);
    for (const g of found.guards) append(guardBlock(found, g));
    const problems = found.problems.filter(isProblem);
    if (problems.length) {
      section(`Stale and vacuous assertions (${problems.length})`);
      for (const p of problems) append(problemBlock(found.chart, p, false));
    }
  }
  function guardBlock(found, g) {
    const div = el("div", { class: "guard", "data-field": g.field });
    const head = el("div", { class: "guard-head" });
    head.appendChild(el("span", { class: "field-path" }, fieldName(g.field)));
    head.appendChild(el("span", { class: "edge-kind" }, ` ${human(g.change)}`));
    div.appendChild(head);
    const unguarded = found.problems.find((p) => p.kind === "unguarded" && p.field === g.field);
    if (unguarded) {
      div.classList.add("unguarded");
      div.appendChild(badge("unguarded", "warn"));
      div.appendChild(el("span", { class: "detail" }, ` ${unguarded.detail}`));
    } else if (!g.pins.length) {
      const why = g.location === null ? "its location was not found in the render" : g.change.endsWith("removed") ? "removed: nothing left to pin" : "no assertion pins it";
      div.appendChild(el("span", { class: "hint" }, `not pinned (${why})`));
    }
    const ul = el("ul", { class: "pins" });
    for (const pin of g.pins) {
      const li = el("li", { class: "pin" });
      li.appendChild(badge(pin.coverage, "muted"));
      li.appendChild(badge(pin.assertion.passed ? `passes at ${g.side}` : `fails at ${g.side}`, pin.assertion.passed ? "ok" : "danger"));
      const marks = found.problems.filter((p) => isProblem(p) && p.assertion && refKey(p.assertion) === refKey(pin.assertion));
      for (const p of marks) li.appendChild(badge(p.kind, "danger"));
      if (marks.length) li.classList.add(marks[0].kind);
      if (!pin.same_value) li.appendChild(badge("under its own values", "muted"));
      li.appendChild(assertionBlock(found.chart, pin.assertion));
      ul.appendChild(li);
    }
    if (g.pins.length) div.appendChild(ul);
    return div;
  }
  function problemBlock(chart, p, withObject) {
    const div = el("div", { class: `problem ${p.kind}` });
    const head = el("div", { class: "guard-head" });
    head.appendChild(badge(p.kind, p.kind === "unguarded" ? "warn" : "danger"));
    if (withObject && p.object !== null) head.appendChild(objectLink(chart, p.object));
    if (p.field !== null) head.appendChild(el("span", { class: "field-path" }, ` ${fieldName(p.field)}`));
    div.appendChild(head);
    div.appendChild(el("div", { class: "detail" }, p.detail));
    if (p.assertion) div.appendChild(assertionBlock(chart, p.assertion));
    return div;
  }

  // A mark for a row of the field diff: what the tests make of that field.
  function fieldMark(ref, field) {
    const found = byObject.get(ref);
    if (!found) return null;
    const problems = found.problems.filter((p) => p.field === field);
    const worst = problems.find((p) => p.kind === "unguarded") || problems.find(isProblem);
    if (worst) return badge(worst.kind, worst.kind === "unguarded" ? "warn" : "danger");
    const guard = found.guards.find((g) => g.field === field);
    const pins = guard ? guard.pins.filter((p) => p.same_value).length : 0;
    return pins ? badge(`pinned by ${pins}`, "ok") : null;
  }
  // Guard problems of an object node, for its marker in the graph.
  function nodeProblems(ref) {
    const found = byObject.get(ref);
    return found ? found.problems : [];
  }

  // ---- a chart's run, in its side panel ----
  function chartTests(n) {
    if (!T) return;
    const chart = charts.find((c) => c.chart === n.ref);
    if (!chart && !T.untested_charts.includes(n.ref)) return;
    section("Tests");
    if (!chart) { append(el("p", { class: "warn-note" }, "This chart has no helm-unittest suites.")); return; }
    table([["base", runText(chart.base)], ["head", runText(chart.head)]]);
    const more = el("a", { "data-target": "tests" }, "Open the test summary");
    more.addEventListener("click", () => ui.openSummary());
    const p = el("p");
    p.appendChild(more);
    append(p);
  }
  const runText = (run) => run.status !== "ran" ? `${human(run.status)}${run.error ? ": " + run.error : ""}`
    : `${run.tests} test(s): ${run.passed} passed, ${run.failed} failed, ${run.errored} errored, ${run.skipped} skipped`
      + (run.not_run ? `, ${run.not_run} not run (no evidence needs their outcome here)` : "");

  // ---- the summary, from the header ----
  function showSummary() {
    panel.replaceChildren();
    append(el("h2", {}, "Tests"));
    if (!T) { append(el("p", { class: "hint" }, "The charts' helm-unittest suites were not run for this review.")); return; }
    const s = T.summary;
    const basePart = s.tests.not_compared
      ? ` Run at head, and at base only where some evidence needs the outcome: ${s.tests.not_compared} test(s) passing at head were not compared, so newly passing ones among them are not known (--base-tests all).`
      : " Run at base and head.";
    append(el("p", { class: "hint" }, `${s.head_tests} helm-unittest test(s) in ${s.charts} chart(s) at head.${basePart} Tests whose outcome did not change are only counted.`));
    section("Outcomes");
    table(Object.entries(s.tests).map(([k, v]) => [human(k), v]).concat([["suites that could not run", s.suite_errors]]));
    section("Guard map");
    table([["changed fields pinned", `${s.guarded_fields} of ${s.changed_fields}`]].concat(Object.entries(s.problems)));
    if (T.untested_charts.length) {
      section(`Charts without tests (${T.untested_charts.length})`);
      const ul = el("ul", { class: "plain" });
      T.untested_charts.forEach((c) => ul.appendChild(el("li", { class: "field-path" }, c)));
      append(ul);
    }
    for (const chart of charts) chartSummary(chart);
  }
  function chartSummary(chart) {
    section(chart.chart);
    table([["base", runText(chart.base)], ["head", runText(chart.head)]]);
    for (const side of ["base", "head"]) {
      for (const e of chart[side].suite_errors) append(el("p", { class: "warn-note" }, `${e.suite_file} at ${side} could not run: ${e.error}`));
    }
    const order = ["newly_failing", "still_failing", "removed", "added", "newly_passing"];
    const tests = [...chart.tests].sort((a, b) => order.indexOf(a.change) - order.indexOf(b.change));
    for (const t of tests) {
      const div = el("div", { class: `test ${t.change}` });
      div.appendChild(badge(human(t.change), t.change.endsWith("failing") ? "danger" : "muted"));
      div.appendChild(el("span", { class: "test-name" }, ` ${t.test}`));
      div.appendChild(el("div", { class: "edge-kind" }, `${t.suite_file} · ${t.suite}`));
      const failure = t.head && (t.head.failure || t.head.skip_reason);
      if (failure) div.appendChild(el("pre", { class: "failure" }, failure));
      append(div);
    }
    if (chart.unchanged_tests) append(el("p", { class: "hint" }, `${chart.unchanged_tests} test(s) with an unchanged outcome.`));
    if (chart.not_compared_tests) append(el("p", { class: "hint" }, `${chart.not_compared_tests} test(s) passing at head, not run at base: not compared.`));
    for (const p of chart.problems) append(problemBlock(chart, p, true));
    if (chart.unresolved_assertions) append(el("p", { class: "hint" }, `${chart.unresolved_assertions} assertion document(s) not matched to an object of the default render.`));
  }

  return { available: T !== null, objectGuards, fieldMark, nodeProblems, chartTests, showSummary };
}
