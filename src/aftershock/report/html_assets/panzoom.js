// aftershock explorer, pan and zoom: the graph's viewport group opens fitted to its box, unless that
// would draw it too small to read (a graph of many layers): then it opens at the smallest readable
// scale from its first layer, the commits, on the left. It is then moved by dragging, the wheel, the
// keys (arrows pan, + and - zoom, 0 fits the whole graph) and the Fit / + / − buttons.
function explorerPanZoom(ctx) {
  "use strict";
  const { el, svg, viewport, graphBox, width, height, box } = ctx;
  const view = { k: 1, x: 0, y: 0 };
  const apply = () => viewport.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.k})`);
  const mid = () => [graphBox.clientWidth / 2, graphBox.clientHeight / 2];
  const READABLE = 0.6;  // the smallest scale whose labels read at the page's font size
  function fit(readable) {
    const w = graphBox.clientWidth || width, h = graphBox.clientHeight || height;
    view.k = Math.min(1, w / width, h / height);
    if (readable === true && view.k < READABLE) view.k = READABLE;
    view.x = width * view.k <= w ? (w - width * view.k) / 2 : 0;
    view.y = Math.max(0, (h - height * view.k) / 2);
    apply();
  }
  const open = () => fit(true);
  function zoomAt(factor, cx, cy) {
    const k = Math.max(0.05, Math.min(3, view.k * factor));
    view.x = cx - (cx - view.x) * (k / view.k);
    view.y = cy - (cy - view.y) * (k / view.k);
    view.k = k;
    apply();
  }
  // A selected node is brought to the middle, close enough to read.
  function centerOn(id) {
    const b = box(id), [cx, cy] = mid();
    if (view.k < READABLE) view.k = READABLE;
    view.x = cx - (b.x + b.w / 2) * view.k;
    view.y = cy - (b.y + b.h / 2) * view.k;
    apply();
  }
  let dragged = false, dragFrom = null;
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const r = svg.getBoundingClientRect();
    zoomAt(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.clientX - r.left, event.clientY - r.top);
  }, { passive: false });
  svg.addEventListener("mousedown", (event) => { dragFrom = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y }; dragged = false; });
  window.addEventListener("mousemove", (event) => {
    if (!dragFrom) return;
    const dx = event.clientX - dragFrom.x, dy = event.clientY - dragFrom.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) dragged = true;  // a click that moved a little is still a click
    if (dragged) { view.x = dragFrom.vx + dx; view.y = dragFrom.vy + dy; apply(); }
  });
  window.addEventListener("mouseup", () => { dragFrom = null; setTimeout(() => { dragged = false; }, 0); });
  const step = 60;
  const keys = {
    ArrowLeft: () => { view.x += step; apply(); }, ArrowRight: () => { view.x -= step; apply(); },
    ArrowUp: () => { view.y += step; apply(); }, ArrowDown: () => { view.y -= step; apply(); },
    "+": () => zoomAt(1.25, ...mid()), "=": () => zoomAt(1.25, ...mid()), "-": () => zoomAt(0.8, ...mid()), "0": () => fit(false),
  };
  graphBox.addEventListener("keydown", (event) => {
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });
  const toolbar = el("div", { class: "zoom", role: "toolbar", "aria-label": "zoom" });
  for (const [label, action, title] of [["Fit", () => fit(false), "Fit the whole graph (0)"], ["+", keys["+"], "Zoom in (+)"], ["−", keys["-"], "Zoom out (-)"]]) {
    const b = el("button", { type: "button", title }, label);
    b.addEventListener("click", (event) => { event.stopPropagation(); action(); });
    toolbar.appendChild(b);
  }
  graphBox.appendChild(toolbar);
  window.addEventListener("resize", open);
  return { open, centerOn, dragged: () => dragged };
}
