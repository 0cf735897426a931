"""The PREMem layer (``construct/premem``): its pure functions and the offline build.

LLM mode and deletion: ``test_premem_llm.py``; fakes and test data: ``fakes_premem.py``.
"""

from __future__ import annotations

from datetime import date, datetime

import numpy as np
import pytest
from pydantic import ValidationError

from memgraph_agents.construct.premem.clusters import centroid, cluster_fragments, link_clusters, silhouette
from memgraph_agents.construct.premem.offline import categorise, fragment_key, informative, offline_fragments
from memgraph_agents.construct.premem.schemas import ExtractedFragment, ReasoningFragment
from memgraph_agents.construct.premem.temporal import parse_time
from memgraph_agents.ingest import ingest_conversation
from memgraph_agents.model import Conversation, Session, Turn
from memgraph_agents.runtime import get_store
from tests.conftest import make_conversation
from tests.fakes_premem import CATEGORIES, TIME_RE, link_conversation, links, premem
from tests.helpers import edges, nodes

# --------------------------------------------------------------------------- pure functions


def _blobs():
    rng = np.random.default_rng(0)
    a, b = np.eye(8)[0], np.eye(8)[1]
    return np.vstack(
        [a + 0.05 * rng.normal(size=8) for _ in range(4)] + [b + 0.05 * rng.normal(size=8) for _ in range(3)]
    )


def test_cluster_fragments_separates_topics_deterministically_and_covers_every_row():
    v = _blobs()
    got = cluster_fragments(v)
    assert got == [[0, 1, 2, 3], [4, 5, 6]] == cluster_fragments(v)
    shuffled = cluster_fragments(v[[4, 0, 5, 1, 6, 2, 3]])  # numbering follows first appearance
    assert shuffled == [[0, 2, 4], [1, 3, 5, 6]]


def test_cluster_fragments_small_and_coherent_inputs():
    assert cluster_fragments(np.zeros((0, 4))) == []
    assert cluster_fragments(np.ones((1, 4))) == [[0]]
    close = np.array([[1.0, 0.1, 0], [1.0, 0.0, 0.1]])
    far = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    assert cluster_fragments(close) == [[0, 1]] and cluster_fragments(far) == [[0], [1]]
    same = np.tile([0.2, 0.9, 0.1], (5, 1))  # one coherent topic: one cluster, not a forced split
    assert cluster_fragments(same) == [[0, 1, 2, 3, 4]]
    # At most ceil(n/2) clusters: no session dissolves into singletons.
    spread = np.eye(6)
    assert 2 <= len(cluster_fragments(spread)) <= 3


def test_silhouette_by_hand():
    # d = 1 - cos: d(0,1) = 1, d(0,2) = 2, d(1,2) = 1. Row 0: a = 1, b = 2 -> 1/2; row 1: a = 1,
    # b = 1 -> 0; row 2 is alone in its cluster -> 0. Mean 1/6; the scale of a row never matters.
    v = np.array([[1.0, 0.0], [0.0, 3.0], [-2.0, 0.0]])
    assert silhouette(v, np.array([0, 0, 1])) == pytest.approx(1 / 6, abs=1e-12)
    assert silhouette(v, np.array([5, 5, 2])) == pytest.approx(1 / 6, abs=1e-12)  # any label values
    twins = np.array([[1.0, 0], [2.0, 0], [0, 1.0], [0, 0.5]])  # a = 0, b = 1 everywhere
    assert silhouette(twins, np.array([0, 0, 1, 1])) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="2..2 clusters"):
        silhouette(v, np.array([0, 1, 2]))


def test_silhouette_matches_sklearn_with_cosine_distance():
    metrics = pytest.importorskip("sklearn.metrics")  # the reference, in the dev install only
    v = _blobs()
    for labels in ([0, 0, 1, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2, 2], [1, 1, 1, 1, 1, 0, 1]):
        want = metrics.silhouette_score(v, np.array(labels), metric="cosine")
        assert silhouette(v, np.array(labels)) == pytest.approx(want, abs=1e-6)
    rng = np.random.default_rng(7)
    wide = rng.normal(size=(40, 16))
    labels = rng.integers(0, 4, size=40)
    assert silhouette(wide, labels) == pytest.approx(metrics.silhouette_score(wide, labels, metric="cosine"), abs=1e-6)


def test_centroid_is_the_normalised_mean():
    c = centroid(np.array([[3.0, 0], [0, 4.0]]))  # mean (1.5, 2) -> unit length
    assert np.allclose(c, [0.6, 0.8])


def test_link_clusters_threshold_is_inclusive_and_links_are_capped_best_first():
    new = np.array([[1.0, 0, 0], [0, 0, 1.0]])
    cos6 = [0.6, 0.8, 0]  # cosine exactly 0.6 with new[0]
    pool = np.array([[1.0, 0, 0], cos6, [0.9, 0.1, 0], [0, 1.0, 0]])
    got = link_clusters(new, pool, threshold=0.6, max_links=2)
    assert [(r, j) for r, j, _ in got] == [(0, 0), (0, 2)]  # capped at 2: the 0.6 pair is the third
    assert got[0][2] == pytest.approx(1.0) and got[1][2] > 0.99
    all3 = link_clusters(new, pool, threshold=0.6, max_links=5)
    assert [(r, j) for r, j, _ in all3] == [(0, 0), (0, 2), (0, 1)] and all3[-1][2] == pytest.approx(0.6)
    assert link_clusters(new, pool, 0.61, 5)[-1][1] == 2  # just above: the 0.6 pair is out
    assert link_clusters(new, np.zeros((0, 3)), 0.6, 3) == [] and link_clusters(new, pool, 0.6, 0) == []


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2028-05-07", "on 2028-05-07"),
        ("Before 2028-05-08", "before 2028-05-08"),
        ("After 8 May 2028", "after 2028-05-08"),
        ("May 2028", "on 2028-05"),
        ("around 2021", "on 2021"),
        ("2028-03-05 to 2028-03-22", "from 2028-03-05 to 2028-03-22"),
        ("Before 2028-03-05 to 2028-03-22", "from 2028-03-05 to 2028-03-22"),
        ("yesterday", "on 2028-05-07"),
        ("next month", "on 2028-06"),
        (None, "on 2028-05-08"),
        ("sometime", "on 2028-05-08"),
    ],
)
def test_parse_time_reads_model_times_into_premem_form(value, expected):
    assert parse_time(value, date(2028, 5, 8)).text == expected


def test_schemas_accept_premem_labels_and_reject_unknown_ones():
    f = ExtractedFragment(
        category="Factual_Information", key=" pet ", content="Ana owns  a beagle", turn_ids="D1:1, D1:2", time=2028
    )
    assert (f.category, f.key, f.content, f.turn_ids, f.time) == (
        "factual",
        "pet",
        "Ana owns a beagle",
        ["D1:1", "D1:2"],
        "2028",
    )
    r = ReasoningFragment(pair="Pair 2", pattern="Connection/Implication", key="k", content="c")
    assert (r.pair, r.pattern) == (2, "connection")
    refined = ReasoningFragment(pair=1, pattern="specification/refinement", key="k", content="c")
    assert refined.pattern == "specification"
    with pytest.raises(ValidationError):
        ExtractedFragment(category="gossip", key="k", content="c", turn_ids=["D1:1"])
    with pytest.raises(ValidationError):
        ExtractedFragment(category="factual", key="k", content="c", turn_ids=[])


def test_offline_heuristics_skip_small_talk_and_categorise():
    assert not informative("No way, congratulations!") and not informative("How is Pixel settling in?", ["Ana"])
    assert informative("I adopted a puppy yesterday, a beagle called Pixel.")
    assert categorise("I love spicy food.", False) == "subjective"
    assert categorise("I adopted a puppy, a beagle called Pixel.", False) == "experiential"
    assert categorise("Four times a week, long runs on Sunday along the river.", True) == "subjective"
    assert categorise("We are going to Lisbon.", False) == "subjective"
    assert categorise("My sister Lena lives in Dresden.", False) == "factual"
    assert categorise("Registration closes on the first.", True) == "experiential"
    key = fragment_key("Speaking of running, I signed up for the Lisbon half marathon.")
    assert key == "running, Lisbon half marathon"  # "Lisbon" alone is inside the longer mention
    assert "Ha" not in fragment_key("Ha, maybe once he stops chewing books.")


def test_offline_fragments_of_the_fixture_session():
    s1 = make_conversation().sessions[0]
    frags = offline_fragments(s1, ["Ana", "Ben"])
    by_turn = {f.turn_ids[0]: f for f in frags}
    assert "D1:2" not in by_turn and "D1:5" not in by_turn  # congratulations, questions, "sounds amazing"
    adopt = by_turn["D1:1"]
    assert (adopt.category, adopt.time.text) == ("experiential", "on 2024-03-09")  # "yesterday"
    assert adopt.content == "Ana: I adopted a puppy yesterday (9 March 2024), a beagle called Pixel."
    assert by_turn["D1:3"].time.text == "before 2024-03-10"  # past, no date: before the message
    assert by_turn["D1:4"].time.text == "on 2024-04"  # "next month"
    assert (by_turn["D1:6"].category, by_turn["D1:6"].time.text) == ("subjective", "on 2024-03-10")  # a habit
    assert {f.builder for f in frags} == {"offline"}


def test_offline_fragments_keep_shared_pictures_and_resolve_dates_per_turn():
    from tests.fakes import sample_session

    frags = offline_fragments(sample_session(), ["Odalys", "Tamsin"])
    picture = [f for f in frags if "shared a picture" in f.content]
    assert [(f.content, f.turn_ids, f.category, f.time.text) for f in picture] == [
        ("Tamsin shared a picture: a bowl painted with lemons", ["D1:4"], "experiential", "on 2028-05-08")
    ]
    group = next(f for f in frags if "chess club" in f.content)
    assert (group.turn_ids, group.time.text, group.category) == (["D1:1"], "on 2028-05-07", "experiential")
    nursing = next(f for f in frags if "study nursing" in f.content)
    assert (nursing.category, nursing.time.text) == ("subjective", "after 2028-05-08")  # a wish: after
    camping = next(f for f in frags if "camping" in f.content)
    assert camping.time.text == "on 2028-06" and camping.category == "subjective"  # "next month": a plan


# --------------------------------------------------------------------------- offline ingest


def test_offline_ingest_stores_fragments_clusters_and_no_reasoning(settings):
    conv = make_conversation()
    report = ingest_conversation(conv, premem(settings))
    store = get_store(settings)
    assert report.notes == [] and report.llm_usage == {}
    frags, clusters = nodes(store, "fragment"), nodes(store, "cluster")
    assert nodes(store, "reasoning") == {}
    turn_nodes = nodes(store, "turn")
    evidence = {(e.src, e.dst) for e in edges(store, "evidence")}
    for s in conv.sessions:
        own = [f for f in frags.values() if f.session_id == s.id]
        assert own, s.id
        for f in own:
            assert f.attrs["category"] in CATEGORIES and f.attrs["builder"] == "offline"
            assert TIME_RE.match(f.attrs["time"]) and f.attrs["time"].startswith(f.attrs["time_relation"])
            assert f.text == f"{f.attrs['key']}: {f.text.split(': ', 1)[1]}" and f.text.endswith(f"({f.attrs['time']})")
            assert f.turn_ids and all(t.startswith(s.id.replace("S", "D") + ":") for t in f.turn_ids)
            assert {(f.id, f"turn:{t}") for t in f.turn_ids} <= evidence
            assert all(f"turn:{t}" in turn_nodes for t in f.turn_ids)
    # Every fragment is in exactly one cluster of its own session; cluster provenance = union.
    member = [e for e in edges(store, "member") if e.src.startswith("cluster:")]
    assert sorted(e.dst for e in member) == sorted(frags)
    for cid, c in clusters.items():
        mine = [frags[e.dst] for e in member if e.src == cid]
        assert {m.session_id for m in mine} == {c.session_id} and c.attrs["size"] == len(mine)
        assert set(c.turn_ids) == {t for m in mine for t in m.turn_ids}
        assert len(c.attrs["centroid"]) == store.embedder.dim
    # Fragments and clusters are embedded (vectors in Chroma).
    assert set(frags) | set(clusters) <= set(store.vectors.all_ids())


def test_a_session_of_small_talk_adds_no_premem_rows_and_no_error(settings):
    turns = [
        Turn(id="D1:1", speaker="Ana", text="Hi Ben!"),
        Turn(id="D1:2", speaker="Ben", text="Hey, how are you?"),
        Turn(id="D1:3", speaker="Ana", text="Good, thanks!"),
    ]
    conv = Conversation(
        id="hi", sessions=[Session(id="S1", date=datetime(2024, 1, 1), turns=turns)], speakers=["Ana", "Ben"]
    )
    report = ingest_conversation(conv, premem(settings))
    store = get_store(settings)
    assert report.sessions_new == 1 and report.notes == []
    assert nodes(store, "fragment") == {} and nodes(store, "cluster") == {} and nodes(store, "turn")


def test_default_preset_builds_no_premem_rows(settings):
    ingest_conversation(make_conversation(n_sessions=1), settings)
    assert nodes(get_store(settings), "fragment") == {} and nodes(get_store(settings), "cluster") == {}


def test_cross_session_links_follow_the_threshold_and_the_persistent_pool(settings):
    ingest_conversation(link_conversation(), premem(settings))
    store = get_store(settings)
    clusters = nodes(store, "cluster")
    assert sorted(clusters) == ["cluster:S1:1", "cluster:S2:1", "cluster:S3:1", "cluster:S4:1"]
    # S2 -> S1; taxes (S3) links nowhere; S4 -> S2 only: S1 was matched by S2 and left the pool.
    assert links(store) == {("cluster:S2:1", "cluster:S1:1"), ("cluster:S4:1", "cluster:S2:1")}
    for e in edges(store, "link"):
        c1, c2 = np.array(clusters[e.src].attrs["centroid"]), np.array(clusters[e.dst].attrs["centroid"])
        assert e.weight == pytest.approx(float(c1 @ c2), abs=1e-4) and e.weight >= 0.6
        assert e.session_id == clusters[e.src].session_id
        assert set(e.turn_ids) == set(clusters[e.src].turn_ids) | set(clusters[e.dst].turn_ids)
    taxes = np.array(clusters["cluster:S3:1"].attrs["centroid"])
    assert all(float(taxes @ np.array(clusters[c].attrs["centroid"])) < 0.6 for c in ("cluster:S1:1", "cluster:S2:1"))


@pytest.mark.slow
def test_a_higher_threshold_forms_no_links_and_max_links_zero_disables_them(settings, tmp_path):
    tight = premem(settings)
    tight = tight.model_copy(update={"ingest": tight.ingest.model_copy(update={"premem_link_threshold": 0.999})})
    ingest_conversation(link_conversation(), tight)
    assert links(get_store(tight)) == set()
    off = premem(settings, data_dir=tmp_path / "off")
    off = off.model_copy(update={"ingest": off.ingest.model_copy(update={"premem_max_links": 0})})
    ingest_conversation(link_conversation(), off)
    assert links(get_store(off)) == set() and nodes(get_store(off), "cluster")


def test_deleting_a_session_restores_the_pool(settings):
    conv = link_conversation()
    s = premem(settings)
    ingest_conversation(Conversation(id="links", sessions=conv.sessions[:3], speakers=conv.speakers), s)
    store = get_store(s)
    store.delete_session("S2")  # its link to S1 goes: S1 is open to matching again
    assert links(store) == set()
    ingest_conversation(conv, s)  # S2 comes back (links S1 again), S4 links S2
    assert links(store) == {("cluster:S2:1", "cluster:S1:1"), ("cluster:S4:1", "cluster:S2:1")}
