"""A memory's identity, and every name derived from it.

A memory is (graph URL, store id, namespace): with no graph URL, the embedded SQLite graph in
the data dir (the store id plays no part); with one, the rows of that store id in that
PostgreSQL database. Every folder, lock file and Chroma collection a memory uses is named
after its identity, so two memories never share one, even when they share a data dir and the
same two servers, and nothing one memory writes, forgets or migrates reaches another's.

* **Folders and locks**: an embedded namespace lives in ``DATA_DIR/namespaces/<namespace>``
  (its ``graph.sqlite`` and lock files). A namespace whose graph is in PostgreSQL keeps only
  its lock files in the data dir, in ``DATA_DIR/servers/<scope>/<namespace>``, where
  ``<scope>`` is a hash of the database URL (without its password) and the store id
  (``memory_dir``).
* **Chroma collections**: the data dir's random store id, written once into
  ``DATA_DIR/store-id`` at first open (atomically: concurrent first opens agree on one id),
  names an embedded namespace's collection ``mg-<store id>-<namespace>``. A PostgreSQL
  namespace's collection is ``mgs-<random>-<namespace>``, drawn when the namespace is created
  and recorded in its own rows (so every worker of the store, whatever its data dir, uses the
  one collection, and two databases sharing a Chroma server never meet). Chroma's rules: 3-512
  characters of ``[a-zA-Z0-9._-]``, alphanumeric at both ends.

A namespace records its collection name in its ``meta`` when it is created and is always
reopened under that name, so data written by earlier versions stays readable as it is:

* Embedded namespaces created before store ids (no recorded name) keep ``mg-<namespace>``.
  New namespaces in such a data dir get scoped names. (A legacy collection on a shared server
  stays shared: `memgraph forget --namespace` and a re-ingest moves it to a scoped one.)
* PostgreSQL namespaces created by earlier versions recorded ``mg-<data dir's store id>-<namespace>``:
  the embedded namespace of that name in that data dir, or another store id served from it,
  may share that collection. They keep reading it; ``forget`` drops their rows but leaves such a
  collection in place (it may hold another memory's vectors), and their lock files in
  ``DATA_DIR/namespaces/<namespace>`` from those versions are no longer used (a folder without a
  ``graph.sqlite`` is not a namespace and is never listed).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from memgraph_agents.config import GRAPH_URL_SCHEMES
from memgraph_agents.datadir import create_private_file, ensure_private_dir
from memgraph_agents.errors import StorageError
from memgraph_agents.storage.namespaces import namespace_dir, validate_stored_name

STORE_ID_FILE = "store-id"
SERVERS_DIR = "servers"  # PostgreSQL memories' lock folders, one per (database, store id)
SERVER_COLLECTION_PREFIX = "mgs-"  # no embedded name starts so: "mg-" + a name never has "mgs-"
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


def collection_name(data_dir: Path, name: str) -> str:
    """Chroma collection of a new embedded namespace: scoped by the data dir's store id."""
    return scoped_collection_name(store_id(data_dir), validate_stored_name(name))


def legacy_collection_name(namespace: str) -> str:
    """Collections of namespaces created before store ids (kept as they are)."""
    return f"mg-{namespace}"


def server_collection_name(namespace: str) -> str:
    """A new collection for a namespace whose graph is in PostgreSQL: random, so no other
    memory (another store id, database or data dir) can ever compute the same name."""
    return f"{SERVER_COLLECTION_PREFIX}{secrets.token_hex(8)}-{namespace}"


def owns_collection(name: str, *, server: bool) -> bool:
    """Whether a memory that recorded collection ``name`` is its only user (it was named by
    the memory's own identity), so dropping the memory may drop the collection. False for a
    PostgreSQL namespace of an earlier version (named after a data dir, maybe shared)."""
    return name.startswith(SERVER_COLLECTION_PREFIX) if server else True


def server_scope(graph_url: str, sid: str) -> str:
    """The folder name of (database, store id) in a data dir: ``s-`` and 32 base32 characters
    of SHA-256 over the URL without its password and the store id (length-prefixed)."""
    parts = urlsplit(str(graph_url))
    netloc = parts.hostname or ""
    if parts.port is not None:
        netloc = f"{netloc}:{parts.port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")).encode("utf-8")
    sid_b = str(sid).encode("utf-8")
    digest = hashlib.sha256(b"memgraph-scope\x00%d:%b%d:%b" % (len(url), url, len(sid_b), sid_b)).digest()
    return "s-" + base64.b32encode(digest).decode("ascii").lower()[:32]


def memory_dir(data_dir: Path, namespace: str, graph_url: str | None = None, sid: str = "default") -> Path:
    """The folder of the memory (graph URL, store id, namespace) in ``data_dir`` (see the module
    docstring): never the same for two memories."""
    if not (graph_url and str(graph_url).startswith(GRAPH_URL_SCHEMES)):  # the embedded store
        return namespace_dir(Path(data_dir), namespace)
    return Path(data_dir) / SERVERS_DIR / server_scope(str(graph_url), sid) / validate_stored_name(namespace)
