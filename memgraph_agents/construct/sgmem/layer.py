"""The ``sgmem`` layer: SGMem's generated memory (session summary, facts, insights) per session.

LLM mode: one structured call per session (``generate.py``); if the model cannot deliver
(``LLMError``: unusable output after the repair turn, timeout, call error) this session is
built offline instead and a note says why, so a session never loses its generated memory.
Offline mode (no LLM): an extractive summary and extractive facts, no insights
(``offline.py``). Rows: ``rows.py``.
"""

from __future__ import annotations

from memgraph_agents.aio import off_loop
from memgraph_agents.construct.build import SessionBuild, fallback_note
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.construct.sgmem.generate import generate_memory
from memgraph_agents.construct.sgmem.offline import offline_draft
from memgraph_agents.construct.sgmem.rows import write_draft
from memgraph_agents.errors import LLMError
from memgraph_agents.model.conversation import Session


async def build_layer(build: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    if ctx.llm is None:
        return write_draft(build, session, await off_loop(offline_draft, build, session, ctx))
    try:
        draft = await generate_memory(
            ctx.llm, session, usage=ctx.usage, timeout=ctx.llm_timeout, semaphore=ctx.semaphore
        )
    except LLMError as exc:
        build.notes.append(fallback_note("sgmem", exc))
        draft = await off_loop(offline_draft, build, session, ctx)
    build.notes.extend(draft.notes)
    return write_draft(build, session, draft)
