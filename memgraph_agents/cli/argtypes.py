"""argparse value types shared by the sub-commands."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """A count such as ``-k``: a whole number >= 1 (``-k -5`` is refused by argparse, exit 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
