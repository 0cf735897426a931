"""``memgraph bench scale``: retrieval latency and memory on synthetic graphs, and its modes
``--tenants``, ``--growth`` and ``--real-stores`` (the options are ``bench_cmd.add_parser``'s;
what each writes is in ``bench_cmd``'s docstring)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from memgraph_agents.config import Settings


def typed_command() -> str | None:
    """The command line as typed, when run as ``memgraph ... bench ...``."""
    if Path(sys.argv[0]).name == "memgraph" and len(sys.argv) > 1 and "bench" in sys.argv:
        return shlex.join(["memgraph", *sys.argv[1:]])
    return None


def cmd_bench_scale(args: argparse.Namespace) -> int:
    from memgraph_agents.bench.scale import parse_sizes, run_scale
    from memgraph_agents.cli.output import console

    if args.out is None:
        raise ValueError("bench scale needs --out DIR (where scale.json and scale.png go)")
    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out}: exists and is not a directory")
    if args.tenants:
        return _bench_tenants(args)
    if args.growth:
        return _bench_growth(args)
    if args.real_stores:
        return _bench_real_stores(args)
    for name in ("queries", "nav_queries", "baseline_queries", "dim"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1")
    sizes = parse_sizes(args.nodes or "1e3,1e4,1e5,1e6")
    doc = run_scale(
        sizes,
        args.out,
        dim=args.dim,
        seed=args.seed,
        queries=args.queries,
        nav_queries=args.nav_queries,
        baseline_queries=args.baseline_queries,
        baseline_max_nodes=int(args.baseline_max_nodes),
        progress=lambda m: console.print(m, markup=False),
        command=typed_command(),
    )
    s = doc["summary"]
    if "ppr_p50_ms_at_1m" in s:
        console.print(
            f"PPR p50 at 1M nodes: {s['ppr_p50_ms_at_1m']:.1f} ms (target {s['ppr_p50_target_ms']:.0f} ms: "
            f"{'met' if s['ppr_p50_target_met'] else 'NOT met'})",
            markup=False,
        )
    if "ppr_slope_vs_edges" in s:
        console.print(
            f"PPR p50 log-log slope vs edges: {s['ppr_slope_vs_edges']:.2f} (≤ 1: no faster than edges)", markup=False
        )
    console.print(f"wrote {args.out / 'scale.json'} and {args.out / 'scale.png'}", markup=False)
    return 0


BACKENDS = ("sqlite", "sqlite+chroma-server", "postgres")


def bench_backends(spec: str) -> list[dict[str, Any]]:
    """The ``--tenant-backends`` list: ``sqlite`` (SQLite + embedded Chroma), ``sqlite+chroma-server``
    (SQLite + the ``MEMGRAPH_CHROMA_HOST`` server), ``postgres`` (``MEMGRAPH_GRAPH_URL`` + that server).
    The servers come from the environment as the package reads it (``Settings``); the bench
    starts none, and a backend whose server is not configured is a clear error."""
    names = [b.strip() for b in spec.split(",") if b.strip()]
    if not names:
        raise ValueError(f"--tenant-backends: name at least one backend ({', '.join(BACKENDS)})")
    out: list[dict[str, Any]] = []
    for name in names:
        if name not in BACKENDS:
            raise ValueError(f"--tenant-backends: unknown backend {name!r} ({', '.join(BACKENDS)})")
        if name == "sqlite":
            out.append({"backend": name})
            continue
        env = Settings.load()
        if not env.chroma_host or (name == "postgres" and not env.graph_url):
            raise ValueError(
                f"--tenant-backends {name}: needs a running PostgreSQL and Chroma server: set "
                "MEMGRAPH_GRAPH_URL=postgresql://... and MEMGRAPH_CHROMA_HOST (and MEMGRAPH_CHROMA_PORT, default 8000)"
            )
        graph_url = env.graph_url if name == "postgres" else None
        out.append({"backend": name, "graph_url": graph_url, "chroma": (env.chroma_host, env.chroma_port)})
    return out


def _bench_tenants(args: argparse.Namespace) -> int:
    from memgraph_agents.bench.tenants import run_tenants
    from memgraph_agents.cli.output import console

    if args.tenants < 1 or args.cache_namespaces < 1:
        raise ValueError("--tenants and --cache-namespaces must be at least 1")
    backends = bench_backends(args.tenant_backends)
    run_tenants(
        args.tenants,
        args.out,
        cache=args.cache_namespaces,
        backends=backends,
        progress=lambda m: console.print(m, markup=False),
        command=typed_command(),
    )
    console.print(f"wrote {args.out / 'tenants.json'}", markup=False)
    return 0


def _bench_real_stores(args: argparse.Namespace) -> int:
    from memgraph_agents.bench.real_stores import run_real_stores
    from memgraph_agents.bench.scale import parse_sizes
    from memgraph_agents.cli.output import console

    if args.queries < 1:
        raise ValueError("--queries must be at least 1")
    sizes = parse_sizes(args.nodes or "1e4,1e5")
    backends = bench_backends(args.tenant_backends)
    run_real_stores(
        sizes,
        args.out,
        backends=backends,
        queries=args.queries,
        seed=args.seed,
        progress=lambda m: console.print(m, markup=False),
        command=typed_command(),
    )
    console.print(f"wrote {args.out / 'real_stores.json'}", markup=False)
    return 0


def _bench_growth(args: argparse.Namespace) -> int:
    from memgraph_agents.bench.growth import run_growth
    from memgraph_agents.cli.output import console

    if args.growth < 100:
        raise ValueError("--growth must be at least 100 turns")
    doc = run_growth(args.growth, args.out, progress=lambda m: console.print(m, markup=False), command=typed_command())
    s = doc["summary"]
    console.print(
        f"per-session time: {s['median_seconds_at_1000_turns']:.3f}s at 1,000 turns, ratio at the end "
        f"{s['ratio']} (target <= {s['target_ratio']}); CPU time ratio {s['cpu_ratio']}",
        markup=False,
    )
    console.print(f"wrote {args.out / 'growth.json'} and {args.out / 'growth.png'}", markup=False)
    return 0
