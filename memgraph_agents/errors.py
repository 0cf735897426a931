"""The one exception hierarchy of memgraph-agents (the bottom layer: imports nothing of ours).

Every error a user can cause or meet derives from ``MemgraphError`` and carries a one-line
message meant for people (the CLI prints it as ``error: …`` and exits 2). Catch
``MemgraphError`` to handle them all; the subclasses say what kind of thing went wrong.
Programming errors stay ordinary exceptions.

    MemgraphError
    ├── InputError (ValueError)         bad input data: file, conversation, message, argument
    │   ├── NamespaceError              invalid namespace name or user id
    │   │   └── NamespaceNotFoundError  the namespace does not exist (message lists those that do)
    │   ├── LimitExceededError          an input over a documented limit (names the limit)
    │   ├── TimeOutOfRangeError         a time expression resolves outside the calendar
    │   └── MissingUserError            a run names no user where one is required (agent tools)
    ├── ConfigError (ValueError)        invalid settings or per-run overrides
    │   ├── EmbeddingMismatchError      a namespace holds another embedding model's vectors
    │   └── LLMConfigError              a chat model spec that cannot be made
    ├── SessionConflictError (ValueError) a stored session differs and replace was not asked
    ├── StorageError (RuntimeError)     the stores cannot be used: data dir, lock, Chroma server
    │   ├── DataDirInUseError           another process kept the data dir (writing, or its embedded Chroma open)
    │   ├── MemoryClosedError           a Memory used after close()
    │   ├── WriterBusyError             a namespace's writer lock stayed taken too long
    │   ├── DiskFullError               the disk filled up (what was kept is said)
    │   ├── ChromaUnavailableError      the Chroma server cannot be reached
    │   ├── NamespaceUnusableError      a namespace's files cannot be opened
    │   ├── GraphServerError            the PostgreSQL server failed or went away
    │   ├── SchemaVersionError          a PostgreSQL schema of another version
    │   └── MemoryWriteError            a background write of the agent tools failed
    └── LLMError (RuntimeError)         an LLM call failed after retries (see memgraph_agents.llm)
        ├── LLMTimeoutError, LLMCallError, LLMOutputError

The subclasses live beside what raises them; every one is importable from ``memgraph_agents``.
"""

from __future__ import annotations

__all__ = [
    "MemgraphError",
    "InputError",
    "NamespaceError",
    "NamespaceNotFoundError",
    "LimitExceededError",
    "ConfigError",
    "SessionConflictError",
    "StorageError",
    "LLMError",
]


class MemgraphError(Exception):
    """Base of every error meant for the user; the message is one line."""

    def __init__(self, message: object = "") -> None:
        # One line, always: messages end up in CLI output and log lines.
        super().__init__(" ".join(str(message).split()))


class InputError(MemgraphError, ValueError):
    """Input that cannot be accepted (file, conversation, messages, argument)."""


class NamespaceError(InputError):
    """A namespace name or user id is invalid."""


class NamespaceNotFoundError(NamespaceError):
    """The namespace does not exist."""


class LimitExceededError(InputError):
    """An input is over one of the documented limits; the message names the limit and setting."""


class ConfigError(MemgraphError, ValueError):
    """Settings or per-run overrides are invalid."""


class SessionConflictError(MemgraphError, ValueError):
    """A session differs from the stored one under the same id and replacing was not asked for."""


class StorageError(MemgraphError, RuntimeError):
    """The stores cannot be used (data dir unusable, lock busy, vector server unreachable)."""


class LLMError(MemgraphError, RuntimeError):
    """An LLM call failed (after retries) or its output could not be used."""
