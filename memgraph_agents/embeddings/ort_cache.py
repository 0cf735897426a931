"""onnxruntime's optimised form of the default model, made at first use and kept in one cache per user.

Loading the int8 file, onnxruntime folds its dequantisation (Cast/Mul nodes) into fp32
weights; while it does, it holds the int8 graph, the folded weights and its working copies at
once: +215 MB of peak RSS for a model that keeps ~100 MB. Its optimised graph, saved once
(``SessionOptions.optimized_model_filepath``) and loaded with graph optimisation off, peaks at
+140 MB and gives the same vectors bit for bit (``tests/test_embeddings.py``), so a fresh
process's first answer stays under 300 MB.

The saved file is a cache of a local computation, never a download: it is named by the pinned
weights' sha256, the onnxruntime version and the machine architecture (the optimised graph may
use kernels of this build), and its own sha256 is written beside it and checked before every
load. A damaged or partial file is rebuilt with a warning; a cache dir that cannot hold it
(read-only) gets the in-memory optimisation, with a warning.

Where: one folder shared by every data dir of the user (``model_cache_dir``), not one copy
per data dir: the file is ~90 MB, ten times a small namespace. ``MEMGRAPH_MODEL_CACHE`` names
another folder; set to an empty value, nothing is kept (optimised in memory each process).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import platform
import secrets
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memgraph_agents.config_process import process_settings
from memgraph_agents.datadir import ensure_private_dir

CACHE_ENV = "MEMGRAPH_MODEL_CACHE"


def model_cache_dir() -> Path | None:
    """The folder of the optimised model: ``$MEMGRAPH_MODEL_CACHE`` when set (empty: none), else
    ``$XDG_CACHE_HOME/memgraph-agents/models`` (``~/.cache/...`` by default); ``None`` when the
    user has no home to put it in."""
    chosen = process_settings().model_cache
    if chosen is not None:
        return Path(chosen).expanduser() if chosen.strip() else None
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if base:
        return Path(base) / "memgraph-agents" / "models"
    try:
        return Path.home() / ".cache" / "memgraph-agents" / "models"
    except RuntimeError:  # no HOME and no passwd entry
        return None


def cached_name(weights_sha256: str, ort_version: str) -> str:
    return f"minilm-int8-{weights_sha256[:16]}-ort{ort_version}-{platform.machine() or 'any'}.onnx"


def file_sha256(path: Path) -> str:
    """The file's sha256, read in chunks (never the whole file in memory: that is the peak we save)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _valid(model: Path, digest_file: Path) -> bool:
    if not model.is_file() or not digest_file.is_file():
        return False
    try:
        expected = digest_file.read_text(encoding="ascii").strip()
        return bool(expected) and file_sha256(model) == expected
    except OSError:
        return False


def optimised_session(
    weights: str | Path,
    weights_sha256: str,
    cache_dir: Path | None,
    options: Any,
    check: Callable[[Any], bool] | None = None,
) -> Any:
    """An ``InferenceSession`` of ``weights`` (already sha256-checked by the caller): from the
    cached optimised graph when ``cache_dir`` holds a valid one (its sha256, then ``check`` of
    the loaded session: the pinned model's output, which a file swapped together with its
    checksum does not give), else optimised now and, when ``cache_dir`` is given, saved there
    for the next process. ``options`` is a fresh ``SessionOptions`` with the caller's threads
    and logging."""
    # lazy: onnxruntime loads with the model, not at import (tests/test_startup.py)
    import onnxruntime as ort

    if cache_dir is None:
        return ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
    model = Path(cache_dir) / cached_name(weights_sha256, ort.__version__)
    digest_file = model.with_name(model.name + ".sha256")
    if _valid(model, digest_file):
        level = options.graph_optimization_level
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # done when it was saved
        try:
            session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - not a model onnxruntime reads: rebuilt below
            session = None
        if session is not None and (check is None or check(session)):
            return session
        del session
        options.graph_optimization_level = level
        warnings.warn(
            f"memgraph: the cached optimised embedding model {model} does not compute the pinned model's "
            "vectors (replaced, with its checksum?); rebuilding it from the pinned weights",
            stacklevel=2,
        )
    elif model.exists() or digest_file.exists():
        warnings.warn(
            f"memgraph: the cached optimised embedding model {model} failed its sha256 check; rebuilding it",
            stacklevel=2,
        )
    _remove_strays(Path(cache_dir), model, digest_file)
    # A name no other process (nor this pid reused after a crash) writes to.
    token = f"{os.getpid()}.{secrets.token_hex(4)}"
    tmp = model.with_name(f".{model.name}.{token}.tmp")
    digest_tmp = digest_file.with_name(f".{digest_file.name}.{token}.tmp")
    try:
        ensure_private_dir(Path(cache_dir))
        options.optimized_model_filepath = str(tmp)
        session = ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
        digest_tmp.write_text(file_sha256(tmp) + "\n", encoding="ascii")
        os.chmod(tmp, 0o600)
        os.chmod(digest_tmp, 0o600)
        os.replace(tmp, model)  # the model first: a model without its digest is rebuilt, never trusted
        os.replace(digest_tmp, digest_file)
        return session
    except Exception as e:  # noqa: BLE001  (an unwritable cache is not a reason to fail the embedding)
        warnings.warn(
            f"memgraph: cannot keep the optimised embedding model in {cache_dir} ({e}); optimising in memory",
            stacklevel=2,
        )
        options.optimized_model_filepath = ""
        return ort.InferenceSession(str(weights), options, providers=["CPUExecutionProvider"])
    finally:  # whatever happened, no temporary file stays behind
        for leftover in (tmp, digest_tmp):
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)


STRAY_AGE = 3600.0  # seconds: older temporary files are a killed process's, never a running one's


def _remove_strays(cache_dir: Path, model: Path, digest_file: Path) -> None:
    """Delete temporary files a process killed while saving left behind (each ~90 MB)."""
    now = time.time()
    for pattern in (f".{model.name}.*.tmp", f".{digest_file.name}.*.tmp"):
        for stray in cache_dir.glob(pattern):
            with contextlib.suppress(OSError):
                if now - stray.stat().st_mtime > STRAY_AGE:
                    stray.unlink()
