"""Namespace names, the one mapping from user ids to namespaces, and where a namespace lives.

A namespace is a hard tenant boundary: its own SQLite file and its own Chroma collection.
Names become paths and collection names, so they are validated strictly.

Two kinds of names, disjoint by construction:

* **raw names**, chosen by people (``--namespace``, ``namespace=``, conversation ids):
  1-64 letters, digits, ``-`` or ``_``, starting and ending with a letter or digit. No dot.
* **derived names**, made from a user id by ``user_namespace``: ``<prefix>.<hash>``, where
  ``<prefix>`` is ``u`` or the caller's namespace prefix (a raw name) and ``<hash>`` is the
  full SHA-256 (52 lowercase base32 characters) of the prefix and the normalised user id.
  The dot is what no raw name may contain, so no raw name (and no user id: ids are always
  hashed) ever equals a derived name, and different (prefix, user id) pairs get different
  names (up to a SHA-256 collision). The name shows nothing of the user id.

User ids are normalised once: Unicode NFC (canonically equivalent spellings are one id).
Ids with surrounding whitespace, control characters or line breaks, empty ids and ids over
``MAX_USER_ID`` characters are refused (``NamespaceError``), never silently merged.

Migration: versions before this mapping used a user id that was a valid name as the
namespace itself (``alice``) and a readable slug plus a short hash otherwise
(``alice-example-com-fc2398a73d``). Those namespaces are raw names: they stay on disk and
readable by name (``memgraph ask --namespace alice``), but no user id maps to them any
more, so each user starts a new memory under the derived name.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import unicodedata
from pathlib import Path

from memgraph_agents.errors import NamespaceError

log = logging.getLogger(__name__)

MAX_USER_ID = 512

# \Z, not $: "$" also matches before a trailing newline, and "x\n" is not a name.
_RAW = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?\Z")
_DERIVED = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?)\.[a-z2-7]{52}\Z")
# Anything unicodedata calls a control, format-less line break or separator: C0/C1 controls,
# DEL, U+2028/U+2029 (line/paragraph separators) and U+0085 (next line).
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def validate_namespace(name: str) -> str:
    """``name`` if it is a valid raw namespace name, else ``NamespaceError``."""
    if not isinstance(name, str) or not _RAW.match(name):
        raise NamespaceError(
            f"invalid namespace {name!r}: use 1-64 letters, digits, '-' or '_', "
            "starting and ending with a letter or digit"
        )
    return name


def is_derived(name: str) -> bool:
    """True for a name made by ``user_namespace`` (``u.<hash>`` / ``<prefix>.<hash>``)."""
    return isinstance(name, str) and bool(_DERIVED.match(name))


def validate_stored_name(name: str) -> str:
    """A name storage accepts: a raw name or a derived one (operators address both)."""
    if is_derived(name):
        return name
    return validate_namespace(name)


def normalise_user_id(user_id: object) -> str:
    """The user id in NFC, or ``NamespaceError`` for one that could be confused with another."""
    if not isinstance(user_id, str):
        raise NamespaceError(f"user id must be a string, got {type(user_id).__name__}")
    if not user_id:
        raise NamespaceError("empty user id")
    uid = unicodedata.normalize("NFC", user_id)
    if _UNSAFE.search(uid):
        raise NamespaceError(f"invalid user id {user_id!r}: control characters or line breaks are not allowed")
    if uid != uid.strip():
        raise NamespaceError(f"invalid user id {user_id!r}: leading or trailing whitespace is not allowed")
    if len(uid) > MAX_USER_ID:
        raise NamespaceError(f"invalid user id: {len(uid)} characters, at most {MAX_USER_ID}")
    return uid


def run_user_id(value: object) -> str | None:
    """The user id a run carries, by one rule for every source (a context attribute or key,
    ``configurable``): only a missing id (``None``) means "no user"; a string or an integer is
    an id (``0`` is the user ``"0"``); an empty string, a bool or any other value is refused
    (``NamespaceError``), never read as "no user", which would be the shared default namespace."""
    if value is None:
        return None
    if isinstance(value, bool):  # before int: True/False are ints to Python, not ids
        raise NamespaceError(f"user id must be a string or an integer, got {value!r}")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return normalise_user_id(value)
    raise NamespaceError(f"user id must be a string or an integer, got {type(value).__name__}")


def user_namespace(user_id: str | int, prefix: str = "") -> str:
    """The namespace of ``user_id`` (see the module docstring): ``u.<hash>`` or ``<prefix>.<hash>``.

    Injective over (prefix, normalised user id) and never a raw name. The id follows the one
    rule of every door (``run_user_id``: a string, or an integer read as its digits); ``None``
    is no id here.
    """
    uid = run_user_id(user_id)
    if uid is None:
        raise NamespaceError("user id is missing (None)")
    if prefix:
        validate_namespace(prefix)
    # Length-prefixed fields: ("ab", "c") and ("a", "bc") hash different bytes.
    p, u = prefix.encode("utf-8"), uid.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(b"memgraph-user\x00%d:%b%d:%b" % (len(p), p, len(u), u)).digest()
    return f"{prefix or 'u'}.{base64.b32encode(digest).decode('ascii').rstrip('=').lower()}"


def namespace_for_id(conversation_id: str, suffix: str = "") -> str:
    """A valid raw namespace named after a conversation id (``conv-26``, ``conv-26-premem`` with
    a suffix): odd characters become ``-``, the name is cut to fit 64 characters.

    Not injective (``team a`` and ``team-a`` give ``team-a``): callers refuse two conversations
    that map to one name (``check_distinct_namespaces``)."""
    base = re.sub(r"[^A-Za-z0-9_-]+", "-", conversation_id).strip("-_")
    room = 64 - (len(suffix) + 1 if suffix else 0)
    base = base[:room].rstrip("-_") or "default"
    return f"{base}-{suffix}" if suffix else base


def namespace_dir(data_dir: Path, name: str) -> Path:
    return Path(data_dir) / "namespaces" / validate_stored_name(name)


def list_namespaces(data_dir: Path) -> list[str]:
    """The namespaces of ``data_dir``; a folder that is not a valid name is skipped with a warning."""
    return sorted(scan_namespaces(data_dir)[0])


def scan_namespaces(data_dir: Path) -> tuple[list[str], list[str]]:
    """(namespaces, names of folders under ``namespaces/`` that are not one)."""
    root = Path(data_dir) / "namespaces"
    if not root.is_dir():
        return [], []
    good, bad = [], []
    for p in sorted(root.iterdir()):
        if not p.is_dir():
            continue
        if (is_derived(p.name) or _RAW.match(p.name)) and (p / "graph.sqlite").exists():
            good.append(p.name)
        elif not (is_derived(p.name) or _RAW.match(p.name)):
            log.warning("memgraph: skipping %r in %s: not a valid namespace name", p.name, root)
            bad.append(p.name)
    return good, bad
