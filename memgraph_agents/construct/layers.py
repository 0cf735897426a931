"""Generated-memory layers by name (the names in ``Preset.layers``): ``async (build, session, ctx) -> build``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from memgraph_agents.construct import memorai, premem, sgmem
from memgraph_agents.construct.build import SessionBuild
from memgraph_agents.construct.context import BuildContext
from memgraph_agents.model.conversation import Session

LayerStep = Callable[[SessionBuild, Session, BuildContext], Awaitable[SessionBuild]]

LAYER_STEPS: dict[str, LayerStep] = {
    "premem": premem.build_layer,
    "memorai": memorai.build_layer,
    "sgmem": sgmem.build_layer,
}
