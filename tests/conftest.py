"""Shared fixtures: isolated data dirs, fast hash embeddings, small conversations."""

from __future__ import annotations

import os
import sys
from datetime import datetime

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# The suite's stores write every vector to Chroma, as a namespace past the threshold does, so
# the commit protocol's Chroma half is exercised everywhere on small conversations; the default
# (no Chroma index below MEMGRAPH_CHROMA_INDEX_NODES) is covered by tests/test_chroma_index.py.
os.environ.setdefault("MEMGRAPH_CHROMA_INDEX_NODES", "0")

import importlib.util  # noqa: E402

from memgraph_agents.config import Settings  # noqa: E402
from memgraph_agents.model import Conversation, Session, Turn  # noqa: E402


def pytest_collection_modifyitems(config, items):
    """``torch``-marked tests need the ``[torch]`` extra: skipped, saying so, where it is not
    installed (the default install); CI runs them in their own step (``.ci/run``)."""
    if importlib.util.find_spec("sentence_transformers") is not None:
        return
    skip = pytest.mark.skip(reason="needs the [torch] extra: pip install torch==2.13.0 && pip install -e '.[torch]'")
    for item in items:
        if "torch" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _fresh_llm_state():
    """The per-model breaker and rejected structured-output methods are process-wide (as in
    production): each test starts with none, whatever the tests before it did to a model.
    Only state that exists is reset: a test of pure logic imports no LLM layer (and so needs
    none of langchain installed to run)."""
    methods = sys.modules.get("memgraph_agents.llm.methods")
    transport = sys.modules.get("memgraph_agents.llm.transport")
    if transport is not None:
        transport.BREAKER.reset()
    if methods is not None:
        methods.reset()
    yield


@pytest.fixture
def quiet(monkeypatch, capsys):
    """Wide, captured CLI output: error lines are never wrapped."""
    from memgraph_agents.cli import output

    for c in (output.console, output.err_console):
        monkeypatch.setattr(c, "_width", 250)
    capsys.readouterr()
    yield


@pytest.fixture
def settings(tmp_path, request) -> Settings:
    """Offline settings on a fresh data dir with the fast deterministic hash embedding; the
    graph in SQLite, or in a fresh PostgreSQL database for a test marked ``@on_both_stores``."""
    url = None
    if getattr(request, "param", "sqlite") == "postgres":
        url = GraphBackend("postgres", request.getfixturevalue("pg_cluster")).database()
    return Settings(data_dir=tmp_path / "mem", embeddings="hash", namespace="test", graph_url=url)


# A test taking ``settings`` runs twice: on SQLite and on PostgreSQL (that variant is slow).
on_both_stores = pytest.mark.parametrize(
    "settings", ["sqlite", pytest.param("postgres", marks=pytest.mark.slow)], indirect=True
)


def make_conversation(cid: str = "chat", n_sessions: int = 3) -> Conversation:
    """A small realistic two-person chat with topic shifts and relative dates."""
    scripts = [
        [
            ("Ana", "Hi Ben! I adopted a puppy yesterday, a beagle called Pixel."),
            ("Ben", "No way, congratulations! How is Pixel settling in?"),
            ("Ana", "Pixel chewed my running shoes already, but he is adorable."),
            ("Ben", "Speaking of running, I signed up for the Lisbon half marathon next month."),
            ("Ana", "Lisbon sounds amazing. Are you training every day?"),
            ("Ben", "Four times a week, long runs on Sunday along the river."),
        ],
        [
            ("Ben", "I finished the Lisbon half marathon last weekend in 1 hour 52 minutes!"),
            ("Ana", "That is a great time. Was the course hilly?"),
            ("Ben", "Very hilly near the castle, my legs still hurt."),
            ("Ana", "Pixel passed his puppy training class two days ago."),
            ("Ben", "Good boy Pixel! Did he learn to sit?"),
        ],
        [
            ("Ana", "I started a new job at the Riverside Library this week."),
            ("Ben", "Congrats! What do you do there?"),
            ("Ana", "I run the children's reading hour on Saturdays."),
            ("Ben", "Pixel could visit as a reading dog some day."),
            ("Ana", "Ha, maybe once he stops chewing books."),
        ],
    ]
    sessions = []
    for s, script in enumerate(scripts[:n_sessions], start=1):
        date = datetime(2024, 3 * s, 10, 18, 30)
        turns = [Turn(id=f"D{s}:{i}", speaker=sp, text=tx) for i, (sp, tx) in enumerate(script, start=1)]
        sessions.append(Session(id=f"S{s}", date=date, turns=turns))
    return Conversation(id=cid, sessions=sessions, speakers=["Ana", "Ben"])


@pytest.fixture
def conversation() -> Conversation:
    return make_conversation()


@pytest.fixture
def llm_server(monkeypatch):
    """A scripted OpenAI-compatible server (tests/llm_server.py) the real ChatOpenAI client
    reaches over HTTP; ``MEMGRAPH_LLM`` and its base URL point at it for the test."""
    from memgraph_agents.llm import methods
    from memgraph_agents.llm.transport import BREAKER
    from tests.llm_server import ScriptedLLMServer

    server = ScriptedLLMServer().start()
    monkeypatch.setenv("MEMGRAPH_LLM_BASE_URL", server.url)
    monkeypatch.setenv("MEMGRAPH_LLM", f"openai:fixture-{id(server):x}")  # a fresh model, limiter, breaker
    methods.reset()
    BREAKER.reset()
    yield server
    server.stop()
    methods.reset()
    BREAKER.reset()


@pytest.fixture(scope="session")
def pg_cluster():
    """One throwaway PostgreSQL cluster for the session (``tests/pg_server.py``), started by
    the first test that asks for it; a skip saying why where PostgreSQL cannot run."""
    from tests.pg_server import PostgresServer, unusable

    if unusable() is not None:
        pytest.skip(f"no PostgreSQL: {unusable()}")
    srv = PostgresServer().start()
    yield srv
    from memgraph_agents.storage.pg_schema import close_pools

    close_pools()
    srv.cleanup()


class GraphBackend:
    """Where a test's graph rows live: ``sqlite`` (the data dir) or ``postgres`` (a database of
    its own per ``database()`` call on the session's cluster, so tests never share rows)."""

    _made = 0

    def __init__(self, name: str, cluster=None) -> None:
        self.name, self.cluster = name, cluster

    def database(self, template: str | None = None) -> str | None:
        """A ``graph_url`` for a fresh memory (``None``: SQLite in the data dir); ``template``:
        a database URL this one starts as a copy of (it must have no connection open)."""
        if self.cluster is None:
            return None
        import psycopg

        GraphBackend._made += 1
        name = f"mg_t{os.getpid()}_{GraphBackend._made}"
        copy = f" TEMPLATE {template.rsplit('/', 1)[1]}" if template else ""
        with psycopg.connect(self.cluster.url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}{copy}")
        return self.cluster.url.rsplit("/", 1)[0] + "/" + name

    def forget(self, url: str | None) -> None:
        """Close this process's pool on ``url`` (a test that makes many databases)."""
        if url is not None:
            from memgraph_agents.storage.pg_schema import close_pools

            close_pools(url)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def graph_backend(request) -> GraphBackend:
    """The commit-protocol suites run on both graph stores: each test that takes this runs
    twice, on SQLite and on PostgreSQL (the PostgreSQL variant is ``slow``)."""
    if request.param == "sqlite":
        return GraphBackend("sqlite")
    return GraphBackend("postgres", request.getfixturevalue("pg_cluster"))
