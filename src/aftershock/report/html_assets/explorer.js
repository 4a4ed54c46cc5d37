// aftershock impact graph explorer: lays the graph out in layer columns (fitted to the window when it
// reads so, with pan and zoom), highlights causes upstream and effects downstream of a clicked node, and
// shows its details (with tests.js: its test guards; with review.js: the verdicts and findings, a
// finding selecting its objects).
// Plain JS, no network, no innerHTML: every text from the document goes through textContent.
(function () {
  "use strict";
  // document.js: the graph section with every field written out (nodes and edges by id)
  const DOC = explorerDocument(JSON.parse(document.getElementById("aftershock-data").textContent));
  const G = DOC.graph || { nodes: [], edges: [], layers: [], roots: [], radius: { nodes: 0, by_layer: {} } };
  const SVG_NS = "http://www.w3.org/2000/svg";
  const W = 260, H = 30, GAP_Y = 10, GAP_X = 110, TOP = 46, LEFT = 24;
  const byId = new Map(G.nodes.map((n) => [n.id, n]));
  const out = new Map(), inc = new Map();
  for (const e of G.edges) {
    if (!out.has(e.source)) out.set(e.source, []);
    if (!inc.has(e.target)) inc.set(e.target, []);
    out.get(e.source).push(e);
    inc.get(e.target).push(e);
  }
  // The path that justifies a reached node, root first: each node says its last step (`via`).
  const pathOf = (n) => {
    const nodes = n.reached ? [n.id] : [], edges = [];
    for (let at = n; at && at.via && nodes.length <= G.nodes.length; at = byId.get(at.via.node)) {
      nodes.unshift(at.via.node);
      edges.unshift(at.via.edge);
    }
    return { nodes, edges };
  };
  const el = (tag, attrs, text) => {
    const node = tag.startsWith("svg:") ? document.createElementNS(SVG_NS, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  };

  // ---- layout: one column per non-empty layer, rows ordered by neighbour barycentres ----
  const columns = G.layers.filter((l) => G.nodes.some((n) => n.layer === l.id)).map((l) => l.id);
  const colOf = new Map(G.nodes.map((n) => [n.id, columns.indexOf(n.layer)]));
  const rows = columns.map((layer) => G.nodes.filter((n) => n.layer === layer).map((n) => n.id));
  const rowOf = new Map();
  const index = () => rows.forEach((r) => r.forEach((id, i) => rowOf.set(id, i)));
  index();
  const sweep = (c, neighbours) => {
    const weight = (id) => {
      const ys = neighbours(id).filter((o) => colOf.get(o) !== c).map((o) => rowOf.get(o));
      return ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : rowOf.get(id);
    };
    const w = new Map(rows[c].map((id) => [id, weight(id)]));
    rows[c].sort((a, b) => w.get(a) - w.get(b) || rowOf.get(a) - rowOf.get(b));
    index();
  };
  const preds = (id) => (inc.get(id) || []).map((e) => e.source);
  const succs = (id) => (out.get(id) || []).map((e) => e.target);
  for (let pass = 0; pass < 4; pass++) {
    for (let c = 1; c < rows.length; c++) sweep(c, preds);
    for (let c = rows.length - 2; c >= 0; c--) sweep(c, succs);
  }
  const pos = (id) => ({ x: LEFT + colOf.get(id) * (W + GAP_X), y: TOP + rowOf.get(id) * (H + GAP_Y) });

  // ---- drawing ----
  const tallest = Math.max(1, ...rows.map((r) => r.length));
  const NAT_W = LEFT * 2 + columns.length * (W + GAP_X), NAT_H = TOP + tallest * (H + GAP_Y) + 20;
  const svg = el("svg:svg", { width: "100%", height: "100%", id: "graph-svg" });
  const viewport = el("svg:g", { id: "viewport" });
  const defs = el("svg:defs");
  const marker = el("svg:marker", { id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "8", markerHeight: "8", markerUnits: "userSpaceOnUse", orient: "auto" });
  marker.appendChild(el("svg:path", { d: "M0,0 L10,5 L0,10 z", fill: "#8a939c" }));
  defs.appendChild(marker);
  svg.appendChild(defs);
  svg.appendChild(viewport);
  const TITLES = { commit: "Commits", file: "Files", unit: "Units", chart: "Charts", object: "Objects", release: "Releases",
    downstream_chart: "Downstream charts", downstream_object: "Downstream objects", workload: "Workloads", namespace: "Namespaces", cluster: "Clusters" };
  const layerTitle = (id) => TITLES[id] || id.replace(/_/g, " ");
  columns.forEach((layer, c) => {
    const reached = G.radius.by_layer[layer] || 0;
    viewport.appendChild(el("svg:text", { x: LEFT + c * (W + GAP_X), y: 24, class: "col-title" }, `${layerTitle(layer)} (${reached})`));
  });
  const edgeGroup = el("svg:g", { id: "edges" });
  const nodeGroup = el("svg:g", { id: "nodes" });
  viewport.appendChild(edgeGroup);
  viewport.appendChild(nodeGroup);
  const edgeEls = G.edges.map((e) => {
    const a = pos(e.source), b = pos(e.target);
    let d;
    if (colOf.get(e.target) > colOf.get(e.source)) {
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x - 2, y2 = b.y + H / 2, dx = (x2 - x1) / 2;
      d = `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
    } else {  // same column or backwards: loop out on the right side
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x + W + 2, y2 = b.y + H / 2;
      const bulge = 40 + Math.min(60, Math.abs(y2 - y1) / 4);
      d = `M${x1},${y1} C${x1 + bulge},${y1} ${x2 + bulge},${y2} ${x2},${y2}`;
    }
    const path = el("svg:path", { d, class: "edge" + (e.weak ? " weak" : ""), "marker-end": "url(#arrow)" });
    path.appendChild(el("svg:title", {}, `${e.kind}${e.via ? ": " + e.via : ""}`));
    edgeGroup.appendChild(path);
    return { edge: e, path };
  });
  const nodeEls = new Map();
  const short = (n) => {
    const max = 36, label = n.label;
    if (label.length <= max) return label;
    return ["file", "template"].includes(n.kind) ? "…" + label.slice(-(max - 1)) : label.slice(0, max - 1) + "…";
  };
  for (const n of G.nodes) {
    const p = pos(n.id);
    const g = el("svg:g", { class: `node kind-${n.kind} layer-${n.layer}` + (n.reached ? "" : " unreached"), "data-id": n.id,
      transform: `translate(${p.x},${p.y})`, tabindex: "0", role: "button", "aria-label": `${n.kind.replace(/_/g, " ")} ${n.label}` });
    g.appendChild(el("svg:rect", { class: "box", width: W, height: H, rx: 6 }));
    g.appendChild(el("svg:rect", { class: "bar", width: 5, height: H, rx: 2, fill: `var(--${n.layer})` }));
    g.appendChild(el("svg:text", { x: 12, y: H / 2 + 4 }, short(n)));
    g.appendChild(el("svg:title", {}, `${n.kind}: ${n.label}`));
    g.addEventListener("click", (event) => { event.stopPropagation(); if (!zoom.dragged()) select(n.id); });
    g.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); select(n.id); } });
    nodeGroup.appendChild(g);
    nodeEls.set(n.id, g);
  }
  const graphBox = document.getElementById("graph");
  graphBox.appendChild(svg);
  svg.addEventListener("click", () => { if (!zoom.dragged()) clear(); });

  // ---- pan and zoom (panzoom.js): the graph opens fitted, or readable from its first layer ----
  const zoom = explorerPanZoom({ el, svg, viewport, graphBox, width: NAT_W, height: NAT_H, box: (id) => ({ ...pos(id), w: W, h: H }) });
  const { open, centerOn } = zoom;

  // ---- selection: causes upstream, effects downstream ----
  const walk = (start, adjacency, next) => {
    const seen = new Set([start]), queue = [start];
    while (queue.length) {
      for (const e of adjacency.get(queue.shift()) || []) {
        const o = next(e);
        if (!seen.has(o)) { seen.add(o); queue.push(o); }
      }
    }
    seen.delete(start);
    return seen;
  };
  let selected = null;
  function select(id) {
    const n = byId.get(id);
    if (!n) return;
    selected = id;
    const up = walk(id, inc, (e) => e.source), down = walk(id, out, (e) => e.target);
    const onPath = new Set(), path = pathOf(n).nodes;
    for (let i = 1; i < path.length; i++) onPath.add(path[i - 1] + "\u0000" + path[i]);
    svg.classList.add("has-selection");
    for (const [nid, g] of nodeEls) {
      g.classList.toggle("selected", nid === id);
      g.classList.toggle("cause", up.has(nid));
      g.classList.toggle("effect", down.has(nid));
      g.classList.toggle("dim", nid !== id && !up.has(nid) && !down.has(nid));
    }
    for (const { edge, path } of edgeEls) {
      const cause = (up.has(edge.source) || edge.source === id) && (up.has(edge.target) || edge.target === id) && edge.source !== id;
      const effect = (down.has(edge.source) || edge.source === id) && down.has(edge.target);
      path.classList.toggle("cause", cause);
      path.classList.toggle("effect", effect);
      path.classList.toggle("dim", !cause && !effect);
      path.classList.toggle("on-path", onPath.has(edge.source + "\u0000" + edge.target));
    }
    try { history.replaceState(null, "", "#node=" + encodeURIComponent(id)); } catch (err) { /* file: URLs may refuse */ }
    showPanel(n, up, down);
  }
  // A finding selects the objects it is about: they are marked selected, what leads to them is kept, the rest dims.
  function selectMany(ids, item) {
    unselect();
    selected = null;
    const chosen = new Set(ids), up = new Set();
    for (const id of ids) for (const u of walk(id, inc, (e) => e.source)) up.add(u);
    svg.classList.add("has-selection");
    for (const [nid, g] of nodeEls) {
      g.classList.toggle("selected", chosen.has(nid));
      g.classList.toggle("cause", up.has(nid) && !chosen.has(nid));
      g.classList.toggle("dim", !chosen.has(nid) && !up.has(nid));
    }
    for (const { edge, path } of edgeEls) path.classList.toggle("dim", !(up.has(edge.source) || chosen.has(edge.source)) || !(up.has(edge.target) || chosen.has(edge.target)));
    try { history.replaceState(null, "", "#finding=" + encodeURIComponent(item.fingerprint)); } catch (err) { /* file: URLs may refuse */ }
    showFinding(item, ids);
    if (ids.length) centerOn(ids[0]);  // close enough to read the first of them
  }
  function showFinding(item, ids) {
    panel.replaceChildren();
    panel.appendChild(el("h2", {}, item.title));
    panel.appendChild(el("div", { class: "id" }, `${item.rule} · ${item.fingerprint.slice(0, 12)}`));
    table([["severity", item.severity], ["category", item.category], ["evidence", item.evidence], ["delta", item.delta.replace(/_/g, " ")],
      ["subject", item.subject.display], ["location", item.location ? item.location.file + (item.location.line ? ":" + item.location.line : "") : "—"]]);
    panel.appendChild(el("p", {}, item.message));
    section(`In the graph (${ids.length})`);
    if (ids.length) table(ids.map((id) => [byId.get(id).layer.replace(/_/g, " "), link(id)]));
    else panel.appendChild(el("p", { class: "hint" }, "Not a node of the impact graph (a commit message or a source file outside it)."));
  }
  function unselect() {
    selected = null;
    svg.classList.remove("has-selection");
    for (const g of nodeEls.values()) g.classList.remove("selected", "cause", "effect", "dim");
    for (const { path } of edgeEls) path.classList.remove("cause", "effect", "dim", "on-path");
  }
  function clear() {
    unselect();
    showOverview();
  }
  function openTests() {
    unselect();
    tests.showSummary();
    panel.scrollTop = 0;
    try { history.replaceState(null, "", "#tests"); } catch (err) { /* file: URLs may refuse */ }
  }

  // ---- side panel ----
  const panel = document.getElementById("panel");
  const link = (id) => {
    const n = byId.get(id);
    const a = el("a", { "data-target": id }, n ? `${n.kind.replace(/_/g, " ")} ${n.label}` : id);
    a.addEventListener("click", () => { select(id); centerOn(id); });
    return a;
  };
  const section = (title) => panel.appendChild(el("h3", {}, title));
  const table = (rowsOf) => {
    const t = el("table");
    for (const [k, v] of rowsOf) {
      const tr = el("tr");
      tr.appendChild(el("th", {}, k));
      const td = el("td");
      if (v instanceof Node) td.appendChild(v); else td.textContent = String(v);
      tr.appendChild(td);
      t.appendChild(tr);
    }
    panel.appendChild(t);
  };
  const tests = explorerTests({ DOC, el, panel, section, table, link, byId, openSummary: () => openTests() });
  // Objects whose guard map has problems carry a marker: warning when unguarded, red when stale or vacuous.
  for (const n of G.nodes.filter((x) => x.kind === "object")) {
    const problems = tests.nodeProblems(n.ref);
    if (!problems.length) continue;
    const severe = problems.some((p) => p.kind !== "unguarded");
    const dot = el("svg:circle", { class: "test-marker " + (severe ? "severe" : "warn"), cx: W - 4, cy: 4, r: 5 });
    dot.appendChild(el("svg:title", {}, "tests: " + [...new Set(problems.map((p) => p.kind))].join(", ")));
    nodeEls.get(n.id).appendChild(dot);
  }
  function showOverview() {
    panel.replaceChildren();
    panel.appendChild(el("h2", {}, "Impact graph"));
    panel.appendChild(el("p", { class: "hint" }, `${G.radius.nodes} node(s) reached from ${G.roots.length} commit(s). Click a node to see what causes it upstream and what it reaches downstream; search by name or id.`));
    section("Reached per layer");
    table(G.layers.filter((l) => l.nodes).map((l) => [l.id.replace(/_/g, " "), `${l.reached} of ${l.nodes}`]));
    if (tests.available) {
      section("Tests");
      const a = el("a", { "data-target": "tests" }, "Open the test summary: outcomes at base and head, the guard map's problems");
      a.addEventListener("click", openTests);
      const p = el("p");
      p.appendChild(a);
      panel.appendChild(p);
    }
  }
  function showPanel(n, up, down) {
    panel.replaceChildren();
    const tag = el("span", { class: "kind-tag", style: `background: var(--${n.layer})` }, n.kind.replace(/_/g, " "));
    const h = el("h2");
    h.appendChild(tag);
    h.appendChild(document.createTextNode(n.label));
    panel.appendChild(h);
    panel.appendChild(el("div", { class: "id" }, n.id));
    if (Object.keys(n.facts).length) { section("Facts"); table(Object.entries(n.facts)); }
    section("Why it is affected");
    const path = pathOf(n);
    if (!n.reached) panel.appendChild(el("p", { class: "hint" }, "Nothing in the change reaches this node."));
    else if (path.nodes.length === 1) panel.appendChild(el("p", { class: "hint" }, "It is part of the change itself."));
    else {
      const ol = el("ol", { class: "path" });
      path.nodes.forEach((id, i) => {
        const li = el("li");
        if (i > 0) li.appendChild(el("span", { class: "edge-kind" }, `${path.edges[i - 1]} → `));
        li.appendChild(link(id));
        ol.appendChild(li);
      });
      panel.appendChild(ol);
    }
    const fedBy = (inc.get(n.id) || []).filter((e) => !n.via || e.source !== n.via.node);
    if (fedBy.length) {
      section(`Also caused by (${fedBy.length})`);
      table(fedBy.map((e) => [e.kind + (e.via ? ` (${e.via})` : ""), link(e.source)]));
    }
    section(`Upstream ${up.size} · downstream ${down.size}`);
    const effects = [...down].slice(0, 60);
    if (effects.length) table(effects.map((id) => [byId.get(id).layer.replace(/_/g, " "), link(id)]));
    else panel.appendChild(el("p", { class: "hint" }, "It reaches nothing further."));
    details(n);
  }
  function details(n) {
    const objects = DOC.objects || [];
    if (["object", "downstream_object", "workload"].includes(n.kind)) {
      const obj = objects.find((o) => o.id === n.ref);
      if (obj) { objectDiff(obj); tests.objectGuards(n); }
      else if (n.kind === "workload") panel.appendChild(el("p", { class: "hint" }, "The workload's own object did not change in this render; it is affected through what feeds it."));
    } else if (n.kind === "values_key" || n.kind === "release_value") {
      const v = (DOC.values_changes || []).find((c) => `${c.file}::${c.path}` === n.ref);
      if (v) { section("Values change"); table([["file", v.file], ["change", v.change], ["description", v.description]]); }
    } else if (n.kind === "file") {
      const f = (DOC.files || []).find((x) => x.path === n.ref);
      if (f) fileDiff(f);
    } else if (n.kind === "commit") {
      const c = (DOC.commits || []).find((x) => x.sha === n.ref);
      if (c) { section("Commit"); table([["title", c.title], ["author", c.author.name], ["date", c.authored_at]]); if (c.body) panel.appendChild(el("pre", {}, c.body)); }
    } else if (n.kind === "chart" || n.kind === "downstream_chart") {
      const renders = (DOC.chart_reviews || []).filter((r) => (n.kind === "chart" ? r.chart === n.ref && !r.release : r.id === n.ref || r.id.startsWith(n.ref + "#")));
      if (renders.length) { section("Renders"); table(renders.map((r) => [r.id, `${r.outcome.replace(/_/g, " ")}, ${r.objects.length} object(s) changed`])); }
      if (n.kind === "chart") tests.chartTests(n);
    }
  }
  const show = (value) => {
    if (value && typeof value === "object" && value.redacted === true) return el("span", { class: "redacted" }, `‹redacted, ${value.bytes} bytes›`);
    if (value === null || value === undefined) return el("span", { class: "redacted" }, "absent");
    return el("pre", {}, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  };
  function objectDiff(obj) {
    section(obj.fields.length ? `Field changes (${obj.change}, ${obj.fields.length})` : `Object (${obj.change})`);
    const alike = (obj.same_in || []).length ? [["changed alike in", obj.same_in.join(", ")]] : [];
    table([["object", obj.display], ["render", obj.review || obj.chart], ...alike, ["templates", obj.templates.join(", ")]]);
    const t = el("table", { class: "fields" });
    for (const f of obj.fields.slice(0, 200)) {
      const tr = el("tr");
      const what = el("td");
      what.appendChild(el("div", { class: "field-path" }, f.path));
      what.appendChild(el("div", { class: "edge-kind" }, f.change));
      const mark = tests.fieldMark(obj.id, f.path);
      if (mark) what.appendChild(mark);
      const before = el("td"), after = el("td");
      before.appendChild(show(f.before));
      after.appendChild(show(f.after));
      tr.append(what, before, after);
      t.appendChild(tr);
    }
    panel.appendChild(t);
    if (obj.fields.length > 200) panel.appendChild(el("p", { class: "hint" }, `${obj.fields.length - 200} more in the JSON output`));
    const plain = obj.diff || ((DOC.objects || []).find((o) => o.identity === obj.identity && o.diff) || {}).diff;
    if (plain) {
      // the object's YAML, base to head (an added object: all of it), secrets shown by size only
      section(obj.change === "added" ? "YAML (added)" : "Plain diff");
      const pre = el("pre", { class: "diff" });
      for (const line of plain.split("\n")) {
        const cls = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
        pre.appendChild(el("span", { class: cls }, line + "\n"));
      }
      panel.appendChild(pre);
    }
  }
  function fileDiff(f) {
    section(`Diff (${f.status}, +${f.additions} −${f.deletions})`);
    const pre = el("pre", { class: "diff" });
    let shown = 0;
    for (const h of f.hunks) {
      pre.appendChild(el("span", { class: "ctx" }, `@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@ ${h.header}\n`));
      for (const line of h.lines) {
        if (shown++ >= 300) break;
        const cls = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx";
        pre.appendChild(el("span", { class: cls }, line + "\n"));
      }
    }
    panel.appendChild(f.binary ? el("p", { class: "hint" }, "binary file") : pre);
  }

  // ---- search ----
  const search = document.getElementById("search"), count = document.getElementById("search-count");
  let matches = [];
  search.addEventListener("input", () => {
    const q = search.value.trim().toLowerCase();
    matches = q ? G.nodes.filter((n) => n.label.toLowerCase().includes(q) || n.id.toLowerCase().includes(q)).map((n) => n.id) : [];
    svg.classList.toggle("searching", q.length > 0);
    for (const [id, g] of nodeEls) g.classList.toggle("match", matches.includes(id));
    count.textContent = q ? `${matches.length} match${matches.length === 1 ? "" : "es"}` : "";
  });
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && matches.length) {
      const next = matches[(matches.indexOf(selected) + 1) % matches.length];
      select(next);
      centerOn(next);
    }
  });
  const testsButton = document.getElementById("tests-button");
  if (testsButton) testsButton.addEventListener("click", openTests);
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") { search.value = ""; search.dispatchEvent(new Event("input")); clear(); } });

  document.documentElement.style.setProperty("--header-height", document.querySelector("header").offsetHeight + "px");
  const wanted = decodeURIComponent((location.hash.match(/^#node=(.*)$/) || [])[1] || "");
  open();
  explorerReview({ DOC, el, byId, selectMany, showFinding });
  if (wanted && byId.has(wanted)) { select(wanted); centerOn(wanted); }
  else if (location.hash === "#tests") openTests();
  else showOverview();
  document.body.setAttribute("data-ready", "true");
})();
