"""Which namespaces an agent's ``recall`` reads: the user's, plus an agent-level and shared ones,
all taken from the run (runtime context or ``config["configurable"]``) or fixed by the
application when it builds the tools — never from a tool argument a model writes.

* the **user** scope: the run's namespace (``run_namespace``); writes (``remember``, chat
  turns) go here and only here;
* the **agent** scope: the run's ``agent_id`` (context attribute or configurable key), else the
  one the tools were built with, mapped by the same function with the prefix ``agent``
  (``agent.<hash>``): what this agent knows whoever it talks to;
* **shared** scopes: the run's ``shared_namespace`` (a name, or a list of names), else the ones
  the tools were built with: plain namespace names, e.g. a team's memory.

``recall`` ranks across them in one list (``Memory.search(namespaces=...)``, each item naming
its namespace); a scope that holds nothing yet adds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables.config import var_child_runnable_config
from langgraph.runtime import get_runtime

from memgraph_agents.errors import InputError
from memgraph_agents.storage.namespaces import run_user_id, user_namespace, validate_stored_name

AGENT_PREFIX = "agent"


def current_config() -> dict:
    """The ``RunnableConfig`` of the run we are in (empty outside a run)."""
    try:
        return dict(var_child_runnable_config.get() or {})
    except Exception:  # pragma: no cover - defensive
        return {}


def current_context() -> Any:
    """The LangGraph runtime context of the run we are in (``None`` outside a graph)."""
    try:
        return get_runtime().context
    except Exception:
        return None


def run_value(context: Any, config: dict | None, key: str) -> Any:
    """``key`` of the run: the context's attribute or dict key, else ``configurable[key]``."""
    if context is not None:
        value = context.get(key) if isinstance(context, dict) else getattr(context, key, None)
        if value is not None:
            return value
    return ((config or {}).get("configurable") or {}).get(key)


class MissingUserError(InputError):
    """The run names no user and the memory has no default namespace."""


def run_user(context: Any, config: dict | None, *, user_key: str) -> str | None:
    """The run's user id (steps 1 and 2 of ``run_namespace``), ``None`` without one."""
    uid = run_user_id(run_value(context, None, user_key))
    conf = (config or {}).get("configurable") or {}
    # A LangGraph server copies a run's context into ``configurable`` (and marks it so): that
    # copy is the context again, not a second source (Studio's empty user id box would be
    # read there as the id "" after the context said "no user").
    if uid is None and not (context is not None and conf.get("__context_provided__")):
        uid = run_user_id(conf.get(user_key))
    return uid


def run_namespace(context: Any, config: dict | None, *, user_key: str, prefix: str, default: str | None) -> str:
    """Whose memory a run uses; never from model arguments. First match wins:

    1. the run context's user id (attribute or dict key ``user_key``);
    2. ``config["configurable"][user_key]``;

       (one rule for both, ``storage.namespaces.run_user_id``: only a missing id, ``None``, is
       "no user"; a string or an integer is an id, ``0`` too; ``""``, ``False`` or another type
       is refused with ``NamespaceError``, never taken for "no user")
    3. the run context's ``namespace`` (a ``MemoryContext`` field);
    4. ``default`` (``None`` makes a user id mandatory: a run without one is refused).

    A user id maps to its namespace as ``Memory.namespace_for_user`` maps it
    (``storage.namespaces.user_namespace``: ``u.<hash>``, or ``<prefix>.<hash>``): injective,
    never equal to a name a person can choose, and showing nothing of the id; ids with
    surrounding whitespace or control characters are refused."""
    uid = run_user(context, config, user_key=user_key)
    if uid is not None:
        return user_namespace(uid, prefix)
    ns = run_value(context, None, "namespace")
    if isinstance(ns, str) and ns:
        return validate_stored_name(ns)
    if default is None:
        raise MissingUserError(
            f"no user for this run: pass context with {user_key!r} or config={{'configurable': {{'{user_key}': ...}}}}"
        )
    return validate_stored_name(default)


@dataclass(frozen=True)
class RunScopes:
    """The namespaces of one run: ``user`` (written and read), ``agent`` and ``shared`` (read)."""

    user: str
    agent: str | None = None
    shared: tuple[str, ...] = ()

    def reads(self) -> list[str]:
        """The namespaces ``recall`` ranks across, user first, each once."""
        return list(dict.fromkeys([self.user, *([self.agent] if self.agent else []), *self.shared]))


def agent_scope(context: Any, config: dict | None, default_agent_id: str | None) -> str | None:
    """The agent-level namespace of the run (module docstring), or ``None``."""
    agent_id = run_value(context, config, "agent_id")
    if agent_id is None:
        agent_id = default_agent_id
    if agent_id is None:
        return None
    if not isinstance(agent_id, (str, int)) or isinstance(agent_id, bool) or agent_id == "":
        raise InputError(f"agent_id must be a non-empty string or an integer, got {agent_id!r}")
    return user_namespace(str(agent_id), AGENT_PREFIX)


def shared_scopes(context: Any, config: dict | None, default: Sequence[str]) -> tuple[str, ...]:
    """The shared namespaces of the run (module docstring), validated."""
    value = run_value(context, config, "shared_namespace")
    names = default if value is None else ([value] if isinstance(value, str) else value)
    if not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
        raise InputError(f"shared_namespace must be a namespace name or a list of them, got {value!r}")
    return tuple(validate_stored_name(n) for n in names)
