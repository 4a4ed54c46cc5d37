// The review document as the explorer reads it: its graph section written out, as graph/compact.py's
// expand_graph does (docs/reviewing.md, "Reading the graph"): nodes and edges by node id, each node with
// its layer, whether it is reached, its distance and its last step (`via`: {node, edge}), a values key's
// label, chart and facts from its values_changes entry and a file's facts from its files entry, and
// the values keys' edges back in their place.
function explorerDocument(raw) {
  "use strict";
  const G = raw.graph;
  if (!G || !("values_key_edges_at" in G)) return raw;
  const nodes = G.nodes, ids = nodes.map((n) => n.id), index = new Map(ids.map((id, i) => [id, i]));
  const changes = new Map((raw.values_changes || []).map((v) => [`values_key:${v.file}::${v.path}`, v]));
  const files = new Map((raw.files || []).map((f) => [f.path, f]));
  const roots = new Set(G.roots), layerOf = new Map();
  for (const layer of G.layers) for (const kind of layer.kinds) layerOf.set(kind, layer.id);
  const natural = (id) => id.slice(id.indexOf(":") + 1);
  const isKey = (n) => n.kind === "values_key";
  // each node's last step [index of the node before it, edge kind]; a values key's is from its file
  const steps = nodes.map((n) => n.via || null);
  nodes.forEach((n, i) => {
    if (!isKey(n)) return;
    const file = index.get("file:" + changes.get(n.id).file);
    steps[i] = steps[file] || roots.has(ids[file]) ? [file, "maps_to"] : null;
  });
  const distance = ids.map((id) => (roots.has(id) ? 0 : null));
  for (let start = 0; start < ids.length; start++) {
    const chain = [];
    let at = start;
    while (distance[at] === null && steps[at] && chain.length <= ids.length) { chain.push(at); at = steps[at][0]; }
    const known = distance[at];
    chain.reverse().forEach((node, hops) => { distance[node] = known === null ? null : known + hops + 1; });
  }
  const written = (n) => {
    if (isKey(n)) {
      const c = changes.get(n.id);
      return { label: c.path, chart: c.chart, facts: { change: c.change, file: c.file } };
    }
    let facts = n.facts || {};
    if (n.kind === "file") {
      const f = files.get(natural(n.id));
      facts = { status: f.status, lines: `+${f.additions} -${f.deletions}`, ...(f.old_path ? { from: f.old_path } : {}) };
    }
    return { label: n.label === undefined ? natural(n.id) : n.label, chart: n.chart === undefined ? null : n.chart, facts };
  };
  const full = nodes.map((n, i) => ({
    id: n.id, kind: n.kind, layer: layerOf.get(n.kind), ...written(n), ref: n.ref === undefined ? natural(n.id) : n.ref,
    reached: distance[i] !== null, distance: distance[i], via: steps[i] ? { node: ids[steps[i][0]], edge: steps[i][1] } : null,
  }));
  const edge = (row) => ({ source: ids[row[0]], target: ids[row[1]], kind: row[2], via: row[3], ...(row[4] ? { weak: true } : {}) });
  const { values_key_edges_at: at, ...section } = G;
  const listed = G.edges.map(edge);
  const keyEdges = [];
  for (const n of full.filter(isKey)) {
    keyEdges.push({ source: "file:" + n.facts.file, target: n.id, kind: "maps_to", via: "values key" });
    if (n.chart !== null) keyEdges.push({ source: n.id, target: "chart:" + (n.chart || "."), kind: "in_chart", via: n.facts.file });
  }
  const edges = listed.slice(0, at).concat(keyEdges, listed.slice(at));  // no spread: tens of thousands
  return { ...raw, graph: { ...section, nodes: full, edges } };
}
