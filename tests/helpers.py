"""Small helpers shared by the layer tests: a registered scripted model and graph-row readers."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

from memgraph_agents.runtime import register_chat_model
from tests.fakes import Responder, ScriptedChatModel, task_text


def register_model(spec: str, responder: Responder) -> ScriptedChatModel:
    """A scripted chat model answering with ``responder``, registered under ``spec``."""
    model = ScriptedChatModel(responder=responder)
    register_chat_model(spec, model)
    return model


def calls_for(model: ScriptedChatModel, marker: str) -> list[Any]:
    """The calls of ``model`` whose original prompt holds ``marker``."""
    return [c for c in model.calls if marker in task_text(c)]


def nodes(store, kind: str) -> dict[str, Any]:
    """The stored nodes of ``kind``, by id."""
    return {n.id: n for n in store.db.nodes("WHERE kind=?", (kind,))}


def edges(store, kind: str) -> list[Any]:
    """The stored edges of ``kind``."""
    return [e for e in store.db.edges() if e.kind.value == kind]


def stop_server(server: subprocess.Popen) -> None:
    """Stop a server started with ``start_new_session=True``: its own process group, by its pid."""
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
