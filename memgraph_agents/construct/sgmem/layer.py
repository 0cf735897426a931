"""Placeholder until the sgmem layer lands: adds nothing and says so in the build's notes."""

from __future__ import annotations

from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.model.conversation import Session


async def build_layer(build: SessionBuild, session: Session, ctx: BuildContext) -> SessionBuild:
    build.notes.append("sgmem layer: not implemented yet")
    return build
