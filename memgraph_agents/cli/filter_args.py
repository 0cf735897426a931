"""Command-line options shared by the commands that read memory: the filters (``--since``,
``--until``, ``--speaker``, ``--filter``) and ``--metadata`` on the commands that add.

``--filter KEY=VALUE`` (repeatable; every one must hold) is one key of ``Memory``'s metadata
filter. VALUE is read as JSON when it is JSON (``year=2024``, ``done=true``,
``tag='"a,b"'``, ``year='{"$gte": 2024}'``, ``tag='{"$in": ["a", "b"]}'``), else as text;
text with commas is any of its parts (``tag=a,b`` is ``{"$in": ["a", "b"]}``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from memgraph_agents.api.filter_text import filter_value, metadata_filter
from memgraph_agents.errors import InputError

__all__ = [
    "add_filter_options",
    "add_metadata_option",
    "filter_kwargs",
    "filter_value",
    "metadata_arg",
    "metadata_filter",
]

FILTER_HELP = (
    "KEY=VALUE: only sessions and notes whose metadata KEY matches (repeatable: all must hold). "
    'VALUE is JSON when it parses (2024, true, \'{"$gte": 2024}\', \'{"$in": ["a", "b"]}\'), else text; '
    "text with commas is any of its parts (tag=a,b)"
)


def add_filter_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("--since", help="only turns dated on or after this date (ISO 8601 or '2 March 2024')")
    s.add_argument("--until", help="only turns dated before this date")
    s.add_argument(
        "--speaker", action="append", help="only turns said by this speaker (repeatable: any of them; any case)"
    )
    s.add_argument("--filter", action="append", metavar="KEY=VALUE", help=FILTER_HELP)


def add_metadata_option(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--metadata",
        help='a JSON object stored with what is added, returned with evidence and filterable: \'{"project": "x"}\'',
    )


def filter_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """``since`` / ``until`` / ``speaker`` / ``filter`` keyword arguments of ``Memory``'s reads."""
    return {
        "since": args.since,
        "until": args.until,
        "speaker": args.speaker,
        "filter": metadata_filter(args.filter),
    }


def metadata_arg(text: str | None) -> dict[str, Any] | None:
    """``--metadata``'s JSON object (checked again, key by key, by ``Memory.add``)."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"--metadata is not JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError:  # an integer of more digits than Python converts: out of range anyway
        raise InputError("--metadata holds a number out of range") from None
    if not isinstance(value, dict):
        raise InputError(f"--metadata must be a JSON object, got {type(value).__name__}")
    return value
