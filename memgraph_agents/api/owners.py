"""The user id a user namespace was made for, kept with it (people, not hashes).

A user namespace's name (``u.<hash>``) shows nothing of the id. When a user id writes to it
(``Memory.add(user_id=)``, ``Memory.user(id).add``), the id is kept in the namespace's own
graph store (its ``meta``, first writer wins): whoever may read the namespace may read who it
is for, and nobody else (the browser under ``--tokens`` shows a token its own namespace only).
``stats()["user_id"]`` returns it.
"""

from __future__ import annotations

from pathlib import Path

from memgraph_agents.config import Settings
from memgraph_agents.storage.graph_store import graph_exists, open_graph_store
from memgraph_agents.storage.namespaces import run_user_id, user_namespace

META_KEY = "user_id"


def keep_user_id(settings: Settings, namespace: str, user_id: str | int, prefix: str = "") -> None:
    """Keep ``user_id`` with ``namespace`` when the namespace is that id's (else nothing)."""

    uid = run_user_id(user_id)
    if uid is None or user_namespace(uid, prefix) != namespace:
        return
    if not graph_exists(Path(settings.data_dir), namespace, settings.graph_url, settings.store_id):
        return
    db = open_graph_store(Path(settings.data_dir), namespace, settings.graph_url, settings.store_id)
    try:
        db.init_meta(META_KEY, uid)
    finally:
        db.close()
