"""``validity.order`` reads the links between statements as constraints on a ranking: the side
the question's time wants takes its partner's place when ranked below it, and every other item
keeps the place the ranking gave it (the answer-aware head order survives the finishing step)."""

from __future__ import annotations

from memgraph_agents.model.evidence import Evidence
from memgraph_agents.retrieval.validity import TimeFocus, Validity, order


class _Links:
    """A snapshot that holds only the links (what ``order`` reads of it); no turn stored."""

    index: dict[str, int] = {}

    def __init__(self, v: Validity) -> None:
        self._v = v

    def derived(self, key: object, factory: object) -> Validity:
        return self._v


def _links(old: str, new: str) -> _Links:
    return _Links(Validity(later={old: [new]}, earlier={new: [old]}, said={old: "2024-01-01", new: "2024-06-01"}))


def _ranking(*turns: str) -> list[Evidence]:
    n = len(turns)
    return [
        Evidence(node_id=f"turn:{t}", kind="turn", text=t, score=float(n - i), turn_ids=[t])
        for i, t in enumerate(turns)
    ]


def _order(snap: _Links, ranking: list[Evidence], kind: str) -> list[str]:
    out = order(snap, ranking, TimeFocus(kind), fetch=lambda t: None, relevance=lambda ev: 0.5)  # type: ignore[arg-type]
    return [ev.turn_ids[0] for ev in out]


def test_a_present_question_puts_the_replacement_in_its_partners_place_and_moves_nothing_else():
    snap = _links("old", "new")
    ranking = _ranking("x", "old", "y", "new", "z")
    assert _order(snap, ranking, "present") == ["x", "new", "old", "y", "z"]
    # the replaced statement is marked, the replacement is not
    out = order(snap, ranking, TimeFocus("present"), fetch=lambda t: None, relevance=lambda ev: 0.5)  # type: ignore[arg-type]
    assert [ev.current for ev in out] == [True, True, False, True, True]
    assert [ev.score for ev in out] == sorted((ev.score for ev in out), reverse=True)


def test_a_past_question_keeps_an_order_that_already_satisfies_the_link_and_reverses_one_that_does_not():
    snap = _links("old", "new")
    assert _order(snap, _ranking("x", "old", "y", "new"), "past") == ["x", "old", "y", "new"]
    assert _order(snap, _ranking("x", "new", "y", "old"), "past") == ["x", "old", "new", "y"]


def test_no_time_focus_leaves_the_ranking_as_it_is():
    snap = _links("old", "new")
    assert _order(snap, _ranking("x", "old", "y", "new"), "none") == ["x", "old", "y", "new"]
