"""The data dir's identity: a store id that scopes every resource outside the data dir.

A Chroma server (or, later, a PostgreSQL database) can be shared by several data dirs. Every
collection (and row) a data dir creates there carries its store id, so two data dirs never
touch each other's data. The id is random, written once into ``DATA_DIR/store-id`` at first
open (atomically: concurrent first opens agree on one id) and never changes.

Collections are named ``mg-<store id>-<namespace>`` (Chroma's rules: 3-512 characters of
``[a-zA-Z0-9._-]``, alphanumeric at both ends). A namespace records its collection name in its
own ``meta`` table when it is created, and is always reopened under that name. Namespaces
created before store ids existed (no recorded name) keep their legacy collection
``mg-<namespace>``: nothing is moved or copied, so an old data dir reads exactly what it wrote;
new namespaces in it get scoped names. (A legacy collection on a shared server stays shared:
`memgraph forget --namespace` and a re-ingest moves it to a scoped one.)
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

from memgraph_agents.datadir import create_private_file, ensure_private_dir
from memgraph_agents.errors import StorageError

STORE_ID_FILE = "store-id"
_ID = re.compile(r"^[a-z0-9]{12}$")


def store_id(data_dir: Path) -> str:
    """The store id of ``data_dir``, created on first use."""
    data_dir = Path(data_dir)
    path = data_dir / STORE_ID_FILE
    if not path.exists():
        ensure_private_dir(data_dir)  # 0700 dirs, 0600 files: memory is private (memgraph_agents.datadir)
        tmp = create_private_file(data_dir / f".{STORE_ID_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        tmp.write_text(secrets.token_hex(6) + "\n")
        try:
            os.link(tmp, path)  # atomic: fails if another process wrote its id first
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    value = path.read_text().strip()
    if not _ID.match(value):
        raise StorageError(f"{path} does not hold a store id (12 lowercase letters or digits): {value[:40]!r}")
    return value


def scoped_collection_name(sid: str, namespace: str) -> str:
    """The collection of ``namespace`` in the data dir whose store id is ``sid``."""
    return f"mg-{sid}-{namespace}"


def legacy_collection_name(namespace: str) -> str:
    """Collections of namespaces created before store ids (kept as they are)."""
    return f"mg-{namespace}"
