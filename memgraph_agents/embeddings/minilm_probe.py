"""What the pinned MiniLM computes for one fixed input: a cached optimised model must compute it too.

The optimised model in the user's cache (``ort_cache``) is checked against its own sha256, which
catches a damaged or partial file but not a file swapped together with its checksum. So a session
loaded from the cache is also asked for the mean token vector of ``PROBE_IDS`` (token ids spread
over the model's vocabulary, so its embedding table is sampled throughout), whose first 16
values the pinned weights give as ``EXPECTED``: another model, or this one with altered weights,
does not. The tolerance leaves room
for another CPU's int8 kernels (differences there are around 1e-4), not for another model.
"""

from __future__ import annotations

from typing import Any

import numpy as np

PROBE_IDS = [101, 2023, 4157, 7592, 2088, 9999, 12345, 17000, 21000, 25000, 28000, 30000, 102]
EXPECTED = [
    0.0001, -0.0394, -0.1442, -0.0799, 0.0282, -0.1662, 0.0796, -0.2258,
    -0.1929, -0.2941, 0.2165, -0.3851, -0.2916, 0.06, 0.3187, -0.216,
]  # fmt: skip
TOLERANCE = 0.02


def computes_pinned_model(session: Any) -> bool:
    """Whether ``session`` gives the pinned weights' output on the probe (see the module docstring)."""
    ids = np.asarray([PROBE_IDS], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    try:
        (hidden,) = session.run(["last_hidden_state"], feed)
        got = np.asarray(hidden, dtype=np.float64)[0].mean(axis=0)[: len(EXPECTED)]
    except Exception:  # noqa: BLE001 - another model's inputs or outputs: not the pinned model
        return False
    return got.shape == (len(EXPECTED),) and bool(np.all(np.abs(got - np.asarray(EXPECTED)) <= TOLERANCE))
