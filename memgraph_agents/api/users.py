"""``user_id=`` on ``Memory``'s verbs: a user's namespace, as ``Memory.user(id)`` binds it."""

from __future__ import annotations

from memgraph_agents.errors import InputError
from memgraph_agents.storage.namespaces import user_namespace


def namespace_or_user(namespace: str | None, user_id: str | None) -> str | None:
    """``namespace``, or the namespace of ``user_id`` (``Memory.namespace_for_user``: the agent
    tools' mapping). Both at once is an error: two names for one memory could disagree, and
    picking one quietly would read or write the other's memory."""
    if user_id is None:
        return namespace
    if namespace is not None:
        raise InputError("pass namespace= or user_id=, not both (a user id names its own namespace)")
    return user_namespace(user_id)  # a malformed id (empty, control characters) is refused here
