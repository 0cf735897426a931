"""Readable ``repr`` for what ``Memory`` returns: ``print(mem.list())`` shows a page as lines a
person reads (id, kind, date, who, the text cut to a line), not a dump of every field.
``model_dump()`` still has every field."""

from __future__ import annotations

from typing import Any

WIDTH = 72


def cut(text: str, width: int = WIDTH) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def item_line(item: Any) -> str:
    who = item.speaker or ", ".join(item.participants)
    return f"{item.kind:<7} {item.id}  {item.date[:10]}  {who + ': ' if who else ''}{cut(item.text, 60)}"


def item_repr(item: Any) -> str:
    return f"MemoryItem({item_line(item)})"


def page_repr(page: Any) -> str:
    more = f", more: cursor={page.cursor[:12]}…" if page.cursor else ""
    head = f"ItemPage(namespace={page.namespace!r}, {len(page.items)} item(s){more})"
    return "\n".join([head, *(f"  {item_line(i)}" for i in page.items)])


def history_repr(history: Any) -> str:
    lines = [f"  v{v.version}  {v.at[:19]}  {cut(v.text, 60)}" for v in history.versions]
    return "\n".join([f"NoteHistory({history.note_id!r}, {len(history.versions)} version(s))", *lines])


def evidence_lines(evidence: list[Any]) -> list[str]:
    return [f"  {cut(ev.cite(), WIDTH + 20)}" for ev in evidence]


def found_repr(found: Any) -> str:
    if not found:
        reason = found.reason.value if found.reason is not None else "empty"
        return f"Found([], reason={reason!r}{': ' + cut(found.why) if found.why else ''})"
    return "\n".join([f"Found({len(found)} item(s))", *evidence_lines(list(found))])


def ask_repr(result: Any) -> str:
    answer = f", answer={cut(result.answer, 60)!r}" if result.answer else ""
    head = f"AskResult(outcome={result.outcome!r}, {len(result.evidence)} evidence item(s){answer})"
    return "\n".join([head, *evidence_lines(result.evidence)])


def add_repr(report: Any) -> str:
    counts = (
        f"{report.sessions_added} added, {report.sessions_appended} appended, "
        f"{report.sessions_replaced} replaced, {report.sessions_unchanged} unchanged"
    )
    notes = f", note_ids={report.note_ids}" if report.note_ids else ""
    return f"AddReport(namespace={report.namespace!r}, {counts}, {report.turns} turn(s){notes})"
