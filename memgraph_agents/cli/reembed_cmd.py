"""``memgraph reembed [--namespace N]``: re-embed namespaces stored with another embedding model.

Each namespace is re-embedded with the configured model (``--embeddings`` / ``MEMGRAPH_EMBEDDINGS``),
atomically and crash-safely (``storage.reembed``); one already holding that model's vectors is
left as it is. All namespaces unless ``--namespace`` / ``MEMGRAPH_NAMESPACE`` names one.
"""

from __future__ import annotations

import argparse

from memgraph_agents.config import Settings


def add_parser(command) -> None:
    s = command("reembed", help="re-embed namespaces stored with another embedding model (atomic per namespace)")
    s.add_argument("--namespace", help="one namespace (env MEMGRAPH_NAMESPACE; default: all)")


def cmd_reembed(args: argparse.Namespace, settings: Settings) -> int:
    from memgraph_agents.api import ops
    from memgraph_agents.cli.output import console, env_namespace, progress_bar
    from memgraph_agents.datadir import check_data_dir
    from memgraph_agents.storage.graph_store import stored_namespaces

    check_data_dir(settings.data_dir)
    only = args.namespace if args.namespace is not None else (env_namespace() or None)
    names = [only] if only is not None else stored_namespaces(settings.data_dir, settings.graph_url, settings.store_id)
    if not names:
        console.print(f"no memory in {settings.data_dir} yet: nothing to re-embed")
        return 0
    notes: list[str] = []
    with progress_bar() as p:
        for ns in names:
            task = p.add_task(f"{ns}: embedding", total=None)

            def advance(done: int, total: int, task=task) -> None:
                p.update(task, completed=done, total=total)

            r = ops.reembed(settings, ns, advance)
            if r.vectors or r.old_model != r.new_model:
                what = f"{r.old_model} -> {r.new_model}, {r.vectors} vectors in {r.seconds:.1f}s"
            else:
                what = f"already {r.new_model}"
            p.update(task, description=f"{ns}: {what}{' (Chroma index rebuilt)' if r.indexed else ''}")
            if r.note:
                notes.append(f"{ns}: {r.note}")
    for line in notes:  # after the bars: a step that failed once the vectors were committed
        console.print(f"warning: {line}", markup=False)
    return 0
