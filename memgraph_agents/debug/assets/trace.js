/* memgraph trace viewer: dependency-free SVG graph with pan / zoom, hover cards, node
 * dragging, a step slider and two precomputed layouts. Reads the JSON in #trace-data. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var COLORS = { SKIP: "#9aa3ad", EXPAND: "#2f7ee6", ANSWER: "#f2a900" };
  var OTHER = "#dde3ea";
  var $ = function (id) { return document.getElementById(id); };

  function h(tag, attrs, children) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    append(e, children);
    return e;
  }
  function s(tag, attrs, children) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    append(e, children);
    return e;
  }
  function setAttrs(e, attrs) {
    for (var k in attrs || {}) {
      if (attrs[k] === undefined || attrs[k] === null || attrs[k] === false) continue;
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.setAttribute("class", attrs[k]);
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
  }
  function append(e, children) {
    if (children === undefined || children === null) return;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
  }
  function cut(t, n) { t = String(t || ""); return t.length > n ? t.slice(0, n - 1) + "…" : t; }
  function fmt(v) { return typeof v === "number" ? (Math.round(v * 100) / 100).toString() : String(v); }
  function scoreText(sc) {
    return Object.keys(sc || {}).map(function (k) { return k + " " + fmt(sc[k]); }).join(", ");
  }
  function goalBoxes(flags) { return (flags || []).map(function (f) { return f ? "■" : "□"; }).join(""); }

  // ------------------------------------------------------------------ model
  var steps = data.steps || [];
  var nodes = data.nodes || [];
  var byId = {};
  nodes.forEach(function (n) { n.px = n.x; n.py = n.y; byId[n.id] = n; n.adj = []; });
  var edges = (data.edges || []).filter(function (e) { return byId[e.s] && byId[e.t]; });
  var pedges = (data.path_edges || []).filter(function (e) { return byId[e.s] && byId[e.t]; });
  edges.concat(pedges).forEach(function (e) { byId[e.s].adj.push(e); byId[e.t].adj.push(e); });
  var onPath = {};
  steps.forEach(function (st) { onPath[st.node] = true; });
  pedges.forEach(function (e) { onPath[e.s] = true; onPath[e.t] = true; });
  (data.evidence || []).forEach(function (ev) { onPath[ev.node] = true; });
  var limit = steps.length;
  var layout = "force";
  var view = { k: 1, x: 0, y: 0 };
  var selected = null;

  // ------------------------------------------------------------------ header + side panel
  $("question").textContent = data.question || "";
  var c = data.counters || {};
  var st = data.stats || {};
  var meta = [
    ["policy", data.policy], ["namespace", data.namespace],
    ["steps", steps.length], ["rounds", c.rounds], ["LLM calls", c.llm_calls],
    ["time", c.wall_ms !== undefined ? Math.round(c.wall_ms) + " ms" : undefined],
    ["shown", (st.events_shown || 0) + " of " + (st.events_total || 0) + " events, " + (st.turns_shown || 0) + " turns, " + (st.topics_shown || 0) + " topics"]
  ];
  meta.forEach(function (m) {
    if (m[1] === undefined || m[1] === "") return;
    $("meta").appendChild(h("span", {}, [m[0] + ": ", h("b", { text: String(m[1]) })]));
  });

  var ans = $("answer");
  if (data.answer) {
    ans.textContent = data.answer;
  } else {
    ans.className = "none";
    ans.textContent = "No generated answer (" + (data.policy || "offline") +
      " policy): the evidence below is what the navigator kept for the calling agent.";
  }

  function nodeLink(id) {
    return h("a", { cls: "node-link", text: id.replace(/^event:/, ""), title: id, href: "#",
      onclick: function (ev) { ev.preventDefault(); select(id, true); } });
  }

  (data.subgoals || []).forEach(function (g) {
    $("subgoals").appendChild(h("li", {}, [
      h("span", { cls: g.satisfied ? "ok" : "no", text: g.satisfied ? "✓ " : "✗ " }),
      h("b", { text: "S" + g.n + " " }), g.text,
      h("span", { cls: "muted", text: g.satisfied ? (g.step ? "  — satisfied at step " + g.step : "  — satisfied") : "  — not satisfied" })
    ]));
  });

  (data.queries || []).forEach(function (q) {
    var starts = (q.start || []).map(function (id, i) { return [i ? ", " : "", nodeLink(id)]; });
    $("queries").appendChild(h("li", {}, [
      h("b", { text: "round " + q.round + " · " + q.kind + ": " }), "“" + q.query + "”",
      h("div", { cls: "muted" }, [(q.candidates || []).length + " candidates; start: "].concat([].concat.apply([], starts)))
    ]));
  });

  $("path-count").textContent = steps.length ? "(" + steps.length + " decisions)" : "(no decision)";
  var rows = {};
  var tbody = document.querySelector("#steps tbody");
  steps.forEach(function (stp) {
    var tr = h("tr", { cls: "step", "data-step": stp.n, onclick: function () { setLimitAtLeast(stp.n); select(stp.node, true); } }, [
      h("td", { text: stp.n }), h("td", { text: stp.round + "." + stp.wave }),
      h("td", { text: stp.explorer === null || stp.explorer === undefined ? "" : "E" + stp.explorer }),
      h("td", {}, nodeLink(stp.node)),
      h("td", {}, h("span", { cls: "badge " + stp.action, text: stp.action })),
      h("td", { cls: "goals", text: goalBoxes(stp.subgoals) }),
      h("td", { text: scoreText(stp.scores) })
    ]);
    var why = stp.reason + (stp.next && stp.next.length ? "  → next: " + stp.next.join(", ") : "") +
      (stp.via && stp.via !== "start" ? "  (via " + stp.via + ")" : "");
    var tr2 = h("tr", { cls: "why", "data-step": stp.n }, [h("td", {}), h("td", { colspan: 6, text: why })]);
    tbody.appendChild(tr); tbody.appendChild(tr2);
    rows[stp.n] = [tr, tr2];
  });

  (data.routes || []).forEach(function (r) {
    $("routes").appendChild(h("li", {}, [h("b", { text: "→ " + r.to + ": " }), r.reason]));
  });
  (data.notes || []).forEach(function (r) {
    $("routes").appendChild(h("li", { cls: "muted", text: r.type + (r.role ? " (" + r.role + ")" : "") + ": " + r.reason }));
  });

  (data.evidence || []).forEach(function (ev) {
    var m = /^\[([^\]]*)\]\s*(.*)$/.exec(ev.cite) || [null, "", ev.cite];
    $("evidence").appendChild(h("li", {}, [nodeLink(ev.node), " ", h("span", { cls: "cite-head", text: "[" + m[1] + "]" }),
      h("div", { text: cut(m[2], 420) })]));
  });
  (data.turns || []).forEach(function (t) {
    var m = /^\[([^\]]*)\]\s*(.*)$/.exec(t.cite) || [null, "", t.cite];
    $("turns").appendChild(h("li", {}, [h("span", { cls: "cite-head", text: "[" + m[1] + "] " }), cut(m[2], 300)]));
  });

  // legend
  var legend = $("legend");
  [["SKIP", COLORS.SKIP, ""], ["EXPAND", COLORS.EXPAND, ""], ["ANSWER", COLORS.ANSWER, ""],
   ["candidate (not visited)", "#ffffff", ""], ["other event", OTHER, ""], ["evidence turn", "#cfe9d8", "sq"],
   ["topic", "#efe6fb", "sq"]].forEach(function (l) {
    legend.appendChild(h("div", {}, [h("span", { cls: "sw " + l[2], style: "background:" + l[1] }), l[0]]));
  });
  legend.appendChild(h("div", {}, [h("span", { cls: "ln", style: "border-color:" + COLORS.EXPAND }), "explored → next"]));
  legend.appendChild(h("div", {}, [h("span", { cls: "ln", style: "border-top:1px dashed #8895a7" }), "similar / shared argument"]));

  // ------------------------------------------------------------------ graph
  var svg = $("graph");
  var vp = $("viewport");
  var defs = $("defs");
  Object.keys(COLORS).concat(["PATH"]).forEach(function (a) {
    defs.appendChild(s("marker", { id: "arrow-" + a, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
      orient: "auto-start-reverse" }, s("path", { d: "M0,0 L10,5 L0,10 z", fill: COLORS[a] || "#475467" })));
  });

  function radius(n) {
    if (n.kind === "event") return n.kept ? 11 : onPath[n.id] ? 9.5 : 7.5;
    if (n.kind === "topic") return 8;
    return 5.5;
  }

  edges.forEach(function (e) {
    e.el = s("line", { cls: "edge " + e.kind });
    e.el.appendChild(s("title", { text: e.label + ": " + e.s + " — " + e.t }));
    $("edges").appendChild(e.el);
  });
  pedges.forEach(function (e) {
    e.el = s("path", { cls: "pedge" + (e.taken ? "" : " untaken") });
    e.el.appendChild(s("title", { text: "step " + (e.step || "?") + ": " + e.s + " → " + e.t }));
    $("path-edges").appendChild(e.el);
  });

  nodes.forEach(function (n) {
    var cls = "node " + n.kind + (n.candidate ? " candidate" : "") + (n.start ? " start" : "") +
      (n.returned ? " returned" : "") + (onPath[n.id] ? " onpath" : "");
    var g = s("g", { cls: cls, "data-id": n.id, "data-kind": n.kind });
    var r = radius(n);
    var shape;
    if (n.kind === "event") shape = s("circle", { cls: "shape", r: r });
    else if (n.kind === "topic") shape = s("rect", { cls: "shape", x: -r, y: -r, width: 2 * r, height: 2 * r, transform: "rotate(45)" });
    else shape = s("rect", { cls: "shape", x: -r, y: -r, width: 2 * r, height: 2 * r, rx: 2 });
    g.appendChild(shape);
    if (n.kept) g.appendChild(s("circle", { cls: "ring", r: r + 3.5 }));
    var lbl = s("text", { cls: "label" + (onPath[n.id] || n.kind === "topic" ? "" : " minor"), x: r + 4, y: 4, text: n.label });
    g.appendChild(lbl);
    var badge = s("g", { cls: "badge-g" });
    g.appendChild(badge);
    g.appendChild(s("title", { text: n.id + (n.date ? " · " + n.date : "") + "\n" + cut(n.text, 300) }));
    n.g = g; n.shape = shape; n.badge = badge; n.r = r;
    g.addEventListener("mouseenter", function (ev) { hover(n, ev); });
    g.addEventListener("mousemove", moveTip);
    g.addEventListener("mouseleave", unhover);
    g.addEventListener("mousedown", function (ev) { startDrag(n, ev); });
    $("nodes").appendChild(g);
  });

  function actionAt(n) {
    var act = "";
    var ns = [];
    steps.forEach(function (stp) {
      if (stp.node === n.id && stp.n <= limit) { act = stp.action; ns.push(stp.n); }
    });
    return { action: act, steps: ns };
  }

  function paint() {
    nodes.forEach(function (n) {
      if (n.kind !== "event") return;
      var a = actionAt(n);
      var fill = a.action ? COLORS[a.action] : n.candidate ? "#ffffff" : OTHER;
      n.shape.setAttribute("fill", fill);
      n.g.setAttribute("data-action", a.action || "");
      n.g.classList.toggle("visited", !!a.action);
      while (n.badge.firstChild) n.badge.removeChild(n.badge.firstChild);
      if (a.steps.length) {
        var txt = a.steps.join(",");
        var w = Math.max(14, 6.2 * txt.length + 6);
        n.badge.appendChild(s("rect", { cls: "badge-bg", x: -w / 2, y: -n.r - 15, width: w, height: 13, rx: 6.5 }));
        n.badge.appendChild(s("text", { cls: "badge-txt", x: 0, y: -n.r - 8.5, text: txt }));
        n.g.setAttribute("data-steps", txt);
      } else {
        n.g.removeAttribute("data-steps");
      }
    });
    pedges.forEach(function (e) {
      var target = byId[e.t];
      var act = target ? actionAt(target).action : "";
      var color = COLORS[act] || "#475467";
      e.el.setAttribute("stroke", color);
      e.el.setAttribute("marker-end", "url(#arrow-" + (COLORS[act] ? act : "PATH") + ")");
      var future = e.step && e.step > limit;
      e.el.setAttribute("class", "pedge" + (e.taken ? "" : " untaken") + (future ? " future" : ""));
    });
    steps.forEach(function (stp) {
      (rows[stp.n] || []).forEach(function (tr) { tr.classList.toggle("future", stp.n > limit); });
    });
    $("step-label").textContent = "step " + limit + " / " + steps.length;
    $("step-slider").value = limit;
  }

  function place() {
    nodes.forEach(function (n) { n.g.setAttribute("transform", "translate(" + n.px.toFixed(1) + "," + n.py.toFixed(1) + ")"); });
    edges.forEach(function (e) {
      var a = byId[e.s], b = byId[e.t];
      e.el.setAttribute("x1", a.px.toFixed(1)); e.el.setAttribute("y1", a.py.toFixed(1));
      e.el.setAttribute("x2", b.px.toFixed(1)); e.el.setAttribute("y2", b.py.toFixed(1));
    });
    pedges.forEach(function (e) {
      var a = byId[e.s], b = byId[e.t];
      var dx = b.px - a.px, dy = b.py - a.py, d = Math.sqrt(dx * dx + dy * dy) || 1;
      var x1 = a.px + dx / d * (a.r + 2), y1 = a.py + dy / d * (a.r + 2);
      var x2 = b.px - dx / d * (b.r + 4), y2 = b.py - dy / d * (b.r + 4);
      var mx = (x1 + x2) / 2 - dy / d * Math.min(28, d * 0.18), my = (y1 + y2) / 2 + dx / d * Math.min(28, d * 0.18);
      e.el.setAttribute("d", "M" + x1.toFixed(1) + "," + y1.toFixed(1) + " Q" + mx.toFixed(1) + "," + my.toFixed(1) +
        " " + x2.toFixed(1) + "," + y2.toFixed(1));
    });
  }

  // timeline lanes (session columns)
  (function lanes() {
    var g = $("lanes");
    var xs = {};
    nodes.forEach(function (n) { if (n.kind === "event") { (xs[n.session] = xs[n.session] || []).push(n.tx); } });
    (data.sessions || []).forEach(function (se) {
      var v = xs[se.id];
      if (!v) return;
      var x = v.reduce(function (a, b) { return a + b; }, 0) / v.length;
      g.appendChild(s("line", { cls: "lane-line", x1: x, y1: 34, x2: x, y2: 990 }));
      g.appendChild(s("text", { cls: "lane-label", x: x, y: 30, transform: "rotate(-40 " + x.toFixed(1) + " 30)",
        text: se.id + " · " + se.date }));
    });
  })();

  // ------------------------------------------------------------------ view: pan / zoom / fit
  function applyView() {
    vp.setAttribute("transform", "translate(" + view.x.toFixed(1) + "," + view.y.toFixed(1) + ") scale(" + view.k.toFixed(4) + ")");
    svg.classList.toggle("zoomed", view.k > 1.6);
  }
  function fit(animate) {
    var xs = nodes.map(function (n) { return n.px; }), ys = nodes.map(function (n) { return n.py; });
    if (!xs.length) return;
    var x0 = Math.min.apply(null, xs) - 40, x1 = Math.max.apply(null, xs) + 80;
    var y0 = Math.min.apply(null, ys) - (layout === "timeline" ? 110 : 40), y1 = Math.max.apply(null, ys) + 40;
    var rect = svg.getBoundingClientRect();
    var w = rect.width || 900, hh = rect.height || 600;
    var k = Math.min(w / (x1 - x0), hh / (y1 - y0), 4);
    var target = { k: k, x: (w - k * (x1 + x0)) / 2, y: (hh - k * (y1 + y0)) / 2 };
    tweenView(target, animate ? 350 : 0);
  }
  function tweenView(target, ms) {
    if (!ms) { view = target; applyView(); return; }
    var from = { k: view.k, x: view.x, y: view.y }, t0 = performance.now();
    function tick(now) {
      var t = Math.min(1, (now - t0) / ms), e = t * (2 - t);
      view = { k: from.k + (target.k - from.k) * e, x: from.x + (target.x - from.x) * e, y: from.y + (target.y - from.y) * e };
      applyView();
      if (t < 1) requestAnimationFrame(tick);
    }
    requestAnimationFrame(tick);
  }
  function zoomAt(factor, cx, cy) {
    var k = Math.max(0.08, Math.min(14, view.k * factor));
    view = { k: k, x: cx - (cx - view.x) * (k / view.k), y: cy - (cy - view.y) * (k / view.k) };
    applyView();
  }
  function local(ev) {
    var r = svg.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var p = local(ev);
    zoomAt(Math.exp(-ev.deltaY * 0.0015), p.x, p.y);
  }, { passive: false });

  var drag = null;
  svg.addEventListener("mousedown", function (ev) {
    if (drag) return;
    var p = local(ev);
    drag = { kind: "pan", sx: p.x, sy: p.y, vx: view.x, vy: view.y };
    svg.classList.add("panning");
  });
  function startDrag(n, ev) {
    ev.stopPropagation();
    var p = local(ev);
    drag = { kind: "node", n: n, sx: p.x, sy: p.y, nx: n.px, ny: n.py, moved: false };
  }
  window.addEventListener("mousemove", function (ev) {
    if (!drag) return;
    var p = local(ev);
    if (drag.kind === "pan") {
      view.x = drag.vx + (p.x - drag.sx); view.y = drag.vy + (p.y - drag.sy); applyView();
    } else {
      var dx = (p.x - drag.sx) / view.k, dy = (p.y - drag.sy) / view.k;
      if (Math.abs(dx) + Math.abs(dy) > 2 / view.k) drag.moved = true;
      drag.n.px = drag.nx + dx; drag.n.py = drag.ny + dy; place();
    }
  });
  window.addEventListener("mouseup", function () {
    if (drag && drag.kind === "node" && !drag.moved) select(drag.n.id, false);
    drag = null;
    svg.classList.remove("panning");
  });

  // ------------------------------------------------------------------ hover + select
  var tip = $("tooltip");
  function hover(n, ev) {
    svg.classList.add("hovering");
    n.g.classList.add("hl");
    n.adj.forEach(function (e) {
      e.el.classList.add("hl");
      byId[e.s].g.classList.add("hl"); byId[e.t].g.classList.add("hl");
    });
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    tip.appendChild(h("div", { cls: "t-head", text: n.kind + " " + n.label + (n.date ? " · " + n.date : "") + (n.session ? " · " + n.session : "") }));
    steps.forEach(function (stp) {
      if (stp.node !== n.id) return;
      tip.appendChild(h("div", { cls: "t-act" }, [h("span", { cls: "badge " + stp.action, text: stp.action }),
        " step " + stp.n + (stp.scores ? "  " + scoreText(stp.scores) : "")]));
    });
    if (n.candidate && !n.steps.length) tip.appendChild(h("div", { cls: "t-act", text: "localisation candidate (score " + fmt(n.score) + "), not visited" }));
    if (n.kept) tip.appendChild(h("div", { cls: "t-act", text: "kept as evidence" }));
    tip.appendChild(h("div", { cls: "t-text", text: cut(n.text, 320) }));
    tip.hidden = false;
    moveTip(ev);
  }
  function moveTip(ev) {
    var pane = $("graph-pane").getBoundingClientRect();
    var x = ev.clientX - pane.left + 14, y = ev.clientY - pane.top + 14;
    if (x + 390 > pane.width) x = Math.max(4, x - 410);
    if (y + 160 > pane.height) y = Math.max(4, y - 170);
    tip.style.left = x + "px"; tip.style.top = y + "px";
  }
  function unhover() {
    svg.classList.remove("hovering");
    Array.prototype.forEach.call(svg.querySelectorAll(".hl"), function (e) { e.classList.remove("hl"); });
    tip.hidden = true;
  }

  function select(id, center) {
    var n = byId[id];
    if (selected) { var o = byId[selected]; if (o) o.g.classList.remove("sel"); }
    Object.keys(rows).forEach(function (k) { rows[k][0].classList.remove("sel"); });
    selected = id;
    var box = $("details"), body = $("details-body");
    while (body.firstChild) body.removeChild(body.firstChild);
    box.hidden = false;
    if (!n) { body.appendChild(h("div", { text: id + " is outside the drawn neighbourhood." })); return; }
    n.g.classList.add("sel");
    var mine = steps.filter(function (stp) { return stp.node === id; });
    mine.forEach(function (stp) { rows[stp.n][0].classList.add("sel"); });
    if (mine.length) rows[mine[0].n][0].scrollIntoView({ block: "nearest" });
    body.appendChild(h("div", {}, [h("b", { text: n.id }), h("span", { cls: "muted", text: "  " + [n.kind, n.date, n.session, n.topic].filter(Boolean).join(" · ") })]));
    body.appendChild(h("div", { cls: "txt", text: n.text }));
    mine.forEach(function (stp) {
      body.appendChild(h("div", {}, [h("span", { cls: "badge " + stp.action, text: stp.action }), " step " + stp.n + " (round " + stp.round + ", wave " + stp.wave + ", E" + stp.explorer + "): " + stp.reason]));
    });
    if (n.turns && n.turns.length && n.kind === "event") body.appendChild(h("div", { cls: "muted", text: "turns: " + n.turns.join(", ") }));
    if (center) {
      var rect = svg.getBoundingClientRect();
      var k = Math.max(view.k, 1.4);
      tweenView({ k: k, x: (rect.width || 900) / 2 - k * n.px, y: (rect.height || 600) / 2 - k * n.py }, 350);
    }
  }

  // ------------------------------------------------------------------ controls
  function setLayout(name) {
    if (name === layout) return;
    layout = name;
    $("btn-force").classList.toggle("on", name === "force");
    $("btn-timeline").classList.toggle("on", name === "timeline");
    svg.classList.toggle("timeline", name === "timeline");
    var from = nodes.map(function (n) { return [n.px, n.py]; }), t0 = performance.now();
    function tick(now) {
      var t = Math.min(1, (now - t0) / 500), e = t < .5 ? 2 * t * t : 1 - Math.pow(-2 * t + 2, 2) / 2;
      nodes.forEach(function (n, i) {
        var tx = name === "force" ? n.x : n.tx, ty = name === "force" ? n.y : n.ty;
        n.px = from[i][0] + (tx - from[i][0]) * e; n.py = from[i][1] + (ty - from[i][1]) * e;
      });
      place();
      if (t < 1) requestAnimationFrame(tick); else fit(true);
    }
    requestAnimationFrame(tick);
  }
  function setLimit(v) { limit = Math.max(0, Math.min(steps.length, v)); paint(); }
  function setLimitAtLeast(v) { if (limit < v) setLimit(v); }
  var playing = null;
  function play() {
    if (playing) { clearInterval(playing); playing = null; $("btn-play").textContent = "▶"; return; }
    if (limit >= steps.length) setLimit(0);
    $("btn-play").textContent = "❚❚";
    playing = setInterval(function () {
      if (limit >= steps.length) { play(); return; }
      setLimit(limit + 1);
      var stp = steps[limit - 1];
      if (stp) select(stp.node, false);
    }, 700);
  }
  $("btn-fit").onclick = function () { fit(true); };
  $("btn-zoom-in").onclick = function () { var r = svg.getBoundingClientRect(); zoomAt(1.3, r.width / 2, r.height / 2); };
  $("btn-zoom-out").onclick = function () { var r = svg.getBoundingClientRect(); zoomAt(1 / 1.3, r.width / 2, r.height / 2); };
  $("btn-force").onclick = function () { setLayout("force"); };
  $("btn-timeline").onclick = function () { setLayout("timeline"); };
  $("btn-labels").onclick = function () { this.classList.toggle("on"); svg.classList.toggle("all-labels"); };
  $("btn-path").onclick = function () { this.classList.toggle("on"); svg.classList.toggle("path-only"); };
  $("btn-play").onclick = play;
  var slider = $("step-slider");
  slider.max = steps.length;
  slider.addEventListener("input", function () { setLimit(parseInt(slider.value, 10) || 0); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target && ev.target.tagName === "INPUT") return;
    if (ev.key === "f" || ev.key === "F") fit(true);
    else if (ev.key === "+" || ev.key === "=") $("btn-zoom-in").onclick();
    else if (ev.key === "-") $("btn-zoom-out").onclick();
    else if (ev.key === "l" || ev.key === "L") $("btn-labels").onclick.call($("btn-labels"));
    else if (ev.key === "p" || ev.key === "P") $("btn-path").onclick.call($("btn-path"));
    else if (ev.key === "ArrowRight") setLimit(limit + 1);
    else if (ev.key === "ArrowLeft") setLimit(limit - 1);
  });
  window.addEventListener("resize", function () { fit(false); });

  // start state from the URL: #timeline, #step=3, #node=event:S1:2
  var hash = decodeURIComponent((location.hash || "").slice(1));
  if (/(^|&)timeline($|&)/.test(hash)) {
    layout = "timeline";
    nodes.forEach(function (n) { n.px = n.tx; n.py = n.ty; });
    $("btn-force").classList.remove("on"); $("btn-timeline").classList.add("on"); svg.classList.add("timeline");
  }
  var m = /(?:^|&)step=(\d+)/.exec(hash);
  if (m) limit = Math.min(steps.length, parseInt(m[1], 10));
  place();
  paint();
  fit(false);
  m = /(?:^|&)node=([^&]+)/.exec(hash);
  if (m) select(m[1], true);
  document.body.setAttribute("data-rendered", "1");
})();
