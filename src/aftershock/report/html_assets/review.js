// aftershock explorer, review column: the verdicts with their reasons, the findings (a click or Enter
// selects the objects a finding is about in the graph), and the tests newly failing.
// Plain JS, no network, no innerHTML: every text from the document goes through textContent.
function explorerReview(ctx) {
  "use strict";
  const { DOC, el, byId, selectMany, showFinding } = ctx;
  const column = document.getElementById("review");
  const section = DOC.findings;
  const levelClass = (level) => "level level-" + level;

  // The graph nodes a finding is about: its subject, else the objects and files on its path.
  const subjectRef = (ref) => ref.replace(/#[^:]*::/, "::");
  function targets(item) {
    const subject = item.subject;
    let found = [];
    for (const n of byId.values()) {
      const ref = n.ref ? subjectRef(String(n.ref)) : "";
      if (ref && ref === subject.id && ["object", "downstream_object", "file", "chart", "commit", "downstream_chart"].includes(n.kind)) found.push(n.id);
    }
    if (!found.length) {
      const steps = new Set(item.path.filter((s) => s.kind === "object" || s.kind === "file").map((s) => s.id));
      for (const n of byId.values()) if (n.ref && steps.has(subjectRef(String(n.ref)))) found.push(n.id);
    }
    return found;
  }

  function verdicts() {
    const box = el("section", { id: "verdicts", "aria-label": "verdicts" });
    if (!section) { box.appendChild(el("p", { class: "hint" }, "The rules did not run: no verdict.")); return box; }
    for (const key of ["merge", "security"]) {
      const v = section.verdicts[key];
      const head = el("div", { class: "verdict" });
      head.appendChild(el("span", { class: levelClass(v.level) }, v.label));
      head.appendChild(el("span", { class: "verdict-title" }, key === "merge" ? "Merge risk" : "Security architecture risk"));
      box.appendChild(head);
      const reasons = reasonsOf(key);
      const ul = el("ul", { class: "reasons" });
      for (const r of reasons) ul.appendChild(el("li", {}, r));
      box.appendChild(ul);
    }
    return box;
  }
  function reasonsOf(key) {
    const items = section.items.filter((i) => i.actionable && (key === "merge" || i.category === "security"));
    const gaps = (DOC.not_reviewed || []).map((n) => "not reviewed: " + n.part);
    const reasons = gaps.slice(0, 1).concat(items.map((i) => `${i.severity}: ${i.title} · ${i.subject.display}`));
    return (reasons.length ? reasons : section.verdicts[key].reasons.length ? section.verdicts[key].reasons : ["no actionable finding"]).slice(0, 3);
  }

  function findingButton(item) {
    const b = el("button", { type: "button", class: "finding sev-" + item.severity, "data-fingerprint": item.fingerprint });
    b.appendChild(el("span", { class: levelClass(item.severity) }, item.severity));
    b.appendChild(el("span", { class: "finding-title" }, item.title));
    b.appendChild(el("span", { class: "finding-subject" }, item.subject.display));
    // a group's card selects what every member is about
    const ids = item.members ? [...new Set(item.members.flatMap((m) => targets(m)))] : targets(item);
    b.dataset.targets = ids.join("\u0000");
    b.addEventListener("click", () => { selectMany(ids, item); for (const o of column.querySelectorAll(".finding.active")) o.classList.remove("active"); b.classList.add("active"); });
    return b;
  }

  // Findings that say the same thing of several objects are one card (as in the comment): same
  // rule, severity, category, evidence and change, and the same message after the subject's name.
  function grouped(items) {
    const key = (i) => i.message.startsWith(i.subject.display)
      ? [i.rule, i.severity, i.category, i.evidence, i.delta, i.message.slice(i.subject.display.length)].join("\u0000")
      : null;
    const members = new Map();
    for (const i of items) { const k = key(i); if (k !== null) members.set(k, (members.get(k) || []).concat([i])); }
    const out = [], placed = new Set();
    for (const i of items) {
      const k = key(i), group = k === null ? null : members.get(k);
      if (!group || group.length < 2) { out.push(i); continue; }
      if (placed.has(k)) continue;
      placed.add(k);
      const names = group.slice(0, 3).map((g) => g.subject.display).join(", ") + (group.length > 3 ? ` and ${group.length - 3} more` : "");
      out.push({ ...i, members: group, subject: { ...i.subject, display: `${group.length} objects: ${names}` } });
    }
    return out;
  }

  function findings() {
    const box = el("section", { id: "findings", "aria-label": "findings" });
    if (!section) return box;
    const actionable = section.items.filter((i) => i.actionable);
    box.appendChild(el("h3", {}, `Concerns (${actionable.length})`));
    if (!actionable.length) box.appendChild(el("p", { class: "hint" }, section.headline + "."));
    for (const item of grouped(actionable)) box.appendChild(findingButton(item));
    const rest = section.items.filter((i) => !i.actionable);
    if (rest.length) {
      const fold = el("details");
      fold.appendChild(el("summary", {}, `Already there, narrowed or resolved (${rest.length})`));
      for (const item of rest) fold.appendChild(findingButton(item));
      box.appendChild(fold);
    }
    return box;
  }

  function failingTests() {
    const box = el("section", { id: "review-tests", "aria-label": "tests newly failing" });
    const failing = ((DOC.tests || {}).charts || []).flatMap((c) => c.tests.filter((t) => t.change === "newly_failing").map((t) => [c, t]));
    box.appendChild(el("h3", {}, `Tests newly failing (${failing.length})`));
    if (!DOC.tests) box.appendChild(el("p", { class: "hint" }, "Tests were not run."));
    for (const [c, t] of failing.slice(0, 30)) {
      const div = el("div", { class: "test newly_failing" });
      div.appendChild(el("div", { class: "test-name" }, `${c.chart}/${t.suite_file} · ${t.test}`));
      div.appendChild(el("pre", { class: "failure" }, (t.head || {}).failure || ""));
      box.appendChild(div);
    }
    return box;
  }

  column.replaceChildren(verdicts(), findings(), failingTests());
  return { targets };
}
