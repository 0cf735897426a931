"""Offline drawings of the LangGraph state machines: Mermaid text and PNG / SVG images.

``Graph.draw_mermaid_png`` renders through mermaid.ink (online) or a browser, so the images
here are drawn with matplotlib instead: a layered layout (longest path from ``__start__``,
back edges found by DFS and drawn as arcs), crossings reduced by barycentre sweeps,
conditional edges dashed, subgraphs (``xray``) boxed and labelled.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from memgraph_agents.extras import require

START, END = "__start__", "__end__"
FORMATS = (".mmd", ".png", ".svg")


def drawable(graph):
    """The ``langchain_core`` drawable graph, subgraphs expanded."""
    return graph.get_graph(xray=True)


def mermaid(graph) -> str:
    return drawable(graph).draw_mermaid()


def _label(node_id: str, node) -> str:
    name = getattr(node, "name", None) or node_id
    return name.rsplit(":", 1)[-1] if ":" in node_id else name


def layout(
    nodes: list[str], edges: list[tuple[str, str]]
) -> tuple[dict[str, tuple[float, float]], set[tuple[str, str]]]:
    """Positions (x, rank) per node and the set of back edges."""
    out: dict[str, list[str]] = defaultdict(list)
    for s, t in edges:
        out[s].append(t)
    back: set[tuple[str, str]] = set()
    state: dict[str, int] = {}  # 1 = on stack, 2 = done

    roots = [START] if START in nodes else []
    roots += [n for n in nodes if n not in roots]
    for root in roots:
        if root in state:
            continue
        stack = [(root, iter(out[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                back.add((node, nxt))
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(out[nxt])))
    forward = [(s, t) for s, t in edges if (s, t) not in back and s != t]
    preds: dict[str, list[str]] = defaultdict(list)
    for s, t in forward:
        preds[t].append(s)
    rank: dict[str, int] = {}

    def rank_of(n: str, seen: frozenset = frozenset()) -> int:
        if n not in rank:
            ps = [p for p in preds[n] if p not in seen]
            rank[n] = 1 + max((rank_of(p, seen | {n}) for p in ps), default=-1)
        return rank[n]

    for n in nodes:
        rank_of(n)
    if END in rank:
        rank[END] = max(rank.values()) if len(nodes) > 1 else 0
        if any(rank[n] == rank[END] for n in nodes if n != END):
            rank[END] += 1
    layers: dict[int, list[str]] = defaultdict(list)
    for n in nodes:
        layers[rank[n]].append(n)
    pos = {n: float(i) for r in layers for i, n in enumerate(layers[r])}
    nbrs: dict[str, list[str]] = defaultdict(list)
    for s, t in forward:
        nbrs[s].append(t)
        nbrs[t].append(s)
    for _ in range(6):  # barycentre sweeps
        for r in sorted(layers):
            layer = layers[r]
            bary = {n: (sum(pos[m] for m in nbrs[n]) / len(nbrs[n]) if nbrs[n] else pos[n]) for n in layer}
            layer.sort(key=lambda n: (bary[n], pos[n]))
            width = len(layer)
            for i, n in enumerate(layer):
                pos[n] = i - (width - 1) / 2
    return {n: (pos[n], float(rank[n])) for n in nodes}, back


def _clip(a: tuple[float, float], b: tuple[float, float], hw: float, hh: float):
    """The segment a→b cut where it leaves the box around a and enters the box around b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if dx == 0 and dy == 0:
        return a, b
    t = min(hw / abs(dx) if dx else float("inf"), hh / abs(dy) if dy else float("inf"))
    t = min(t, 0.45)
    return (a[0] + dx * t, a[1] + dy * t), (b[0] - dx * t, b[1] - dy * t)


def render_image(graph, path: Path, *, title: str = "") -> None:
    """Draw ``graph`` to ``path`` (.png or .svg) with matplotlib (the ``[draw]`` extra), offline."""

    require("matplotlib", "draw", "drawing a graph to an image")
    # lazy: matplotlib, the [draw] extra (checked just above)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

    g = drawable(graph)
    nodes = list(g.nodes)
    edges = [(e.source, e.target) for e in g.edges]
    cond = {(e.source, e.target): bool(e.conditional) for e in g.edges}
    xy, back = layout(nodes, edges)
    labels = {n: _label(n, g.nodes[n]) for n in nodes}
    sx, sy = 2.6, 1.25
    coords = {n: (x * sx, -r * sy) for n, (x, r) in xy.items()}
    xs = [c[0] for c in coords.values()] or [0.0]
    ys = [c[1] for c in coords.values()] or [0.0]
    w_in = max(5.0, (max(xs) - min(xs)) + 4.5)
    h_in = max(3.5, (max(ys) - min(ys)) + 2.2)
    fig = Figure(figsize=(w_in, h_in), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(min(xs) - 2.2, max(xs) + 2.2)
    ax.set_ylim(min(ys) - 1.0, max(ys) + (1.2 if title else 0.9))
    ax.set_aspect("equal")
    ax.axis("off")
    bw, bh = 2.0, 0.55

    clusters: dict[str, list[str]] = defaultdict(list)
    for n in nodes:
        if ":" in n:
            clusters[n.rsplit(":", 1)[0]].append(n)
    for name, members in clusters.items():
        cx = [coords[m][0] for m in members]
        cy = [coords[m][1] for m in members]
        x0, x1 = min(cx) - bw / 2 - 0.25, max(cx) + bw / 2 + 0.25
        y0, y1 = min(cy) - bh / 2 - 0.25, max(cy) + bh / 2 + 0.45
        ax.add_patch(
            Rectangle(
                (x0, y0),
                x1 - x0,
                y1 - y0,
                facecolor="#f7f7fb",
                edgecolor="#9a9ab0",
                linestyle="--",
                linewidth=1.0,
                zorder=0,
            )
        )
        ax.text(x0 + 0.1, y1 - 0.12, name, ha="left", va="top", fontsize=9, color="#55557a", style="italic")

    for s, t in edges:
        (x0, y0), (x1, y1) = coords[s], coords[t]
        style = "--" if cond.get((s, t)) else "-"
        color = "#7a6ff0" if cond.get((s, t)) else "#444444"
        if s == t:  # self-loop: a small arc on the right of the box
            ax.add_patch(
                FancyArrowPatch(
                    (x0 + bw / 2, y0 + 0.12),
                    (x0 + bw / 2, y0 - 0.12),
                    connectionstyle="arc3,rad=-2.2",
                    arrowstyle="-|>",
                    mutation_scale=11,
                    linestyle=style,
                    color=color,
                    linewidth=1.0,
                    zorder=1,
                )
            )
            continue
        if (s, t) in back:
            rad = -0.35
        elif abs(xy[t][1] - xy[s][1]) > 1:
            rad = 0.2
        else:
            rad = 0.0
        a, b = _clip((x0, y0), (x1, y1), bw / 2 + 0.04, bh / 2 + 0.04)
        ax.add_patch(
            FancyArrowPatch(
                a,
                b,
                connectionstyle=f"arc3,rad={rad}",
                arrowstyle="-|>",
                mutation_scale=13,
                shrinkA=0,
                shrinkB=0,
                linestyle=style,
                color=color,
                linewidth=1.1,
                zorder=4,
            )
        )
    for n in nodes:
        x, y = coords[n]
        terminal = n in (START, END) or n.endswith(":" + END)
        face = "#ffffff" if n == START else "#bfb6fc" if terminal else "#f2f0ff"
        ax.add_patch(
            FancyBboxPatch(
                (x - bw / 2, y - bh / 2),
                bw,
                bh,
                boxstyle="round,pad=0.02,rounding_size=0.27" if terminal else "round,pad=0.02",
                facecolor=face,
                edgecolor="#5b53b8",
                linewidth=1.2,
                zorder=2,
            )
        )
        label = labels[n]
        ax.text(
            x,
            y,
            label if len(label) <= 26 else label[:25] + "…",
            ha="center",
            va="center",
            fontsize=9,
            zorder=3,
            family="DejaVu Sans",
        )
    if title:
        ax.text((min(xs) + max(xs)) / 2, max(ys) + 0.85, title, ha="center", va="center", fontsize=12, weight="bold")
    fig.savefig(str(path), format=Path(path).suffix.lstrip("."), facecolor="white")


def draw(graph, out: str | Path, *, title: str = "") -> Path:
    """Write ``graph`` to ``out``: ``.mmd`` (Mermaid text), ``.png`` or ``.svg`` (offline image)."""
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"cannot draw to {path.name!r}: use one of {', '.join(FORMATS)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".mmd":
        path.write_text(mermaid(graph), encoding="utf-8")
    else:
        render_image(graph, path, title=title)
    return path
