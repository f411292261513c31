"""Actions as data, the SQLite event log, undo and replay: determinism checked with property tests."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.errors import GameImportError, IllegalAction, MalformedAction, NothingToUndo, StaleRequest
from companion.games.nessie_hunt import (Advance, Buy, ClaimTrump, Coverage, EndTurn, EvidenceCard, LogisticsDealt,
                                          NessieHunt, NewGame, PlayTrump, RepayLoan, Return, Throw, action_from_json,
                                          action_to_json)
from companion.store import EventStore, StoreError
from companion.table import Table

from tests.nessie_helpers import SETUPS, default_action  # noqa: E402

actions = st.one_of(
    st.builds(Throw, st.integers(1, 6), st.sampled_from(["screen", "camera", "gpio", "serial", "autoplay"])),
    st.builds(LogisticsDealt, st.one_of(st.none(), st.text(min_size=1, max_size=10))),
    st.just(Advance()),
    st.sampled_from(SETUPS),
    st.builds(Coverage, st.lists(st.tuples(st.integers(1, 60), st.sampled_from(["surface", "left", "right", "up", "down"])), max_size=5).map(tuple)),
    st.builds(EvidenceCard, st.integers(0, 500)),
    st.builds(Buy, st.sampled_from(["sonar", "cage", "eye_witness"]), st.one_of(st.none(), st.just("D3b"))),
    st.builds(Return, st.integers(1, 60)),
    st.builds(RepayLoan, st.integers(1, 900)),
    st.just(EndTurn()),
    st.builds(ClaimTrump, st.sampled_from(["british", "american"])),
    st.builds(PlayTrump, st.sampled_from(["D", "3", "b"])),
)


@given(actions)
def test_every_action_round_trips_through_json(action):
    text = json.dumps(action_to_json(action))
    assert action_from_json(json.loads(text)) == action


@pytest.mark.parametrize("data,match", [
    ([], "JSON object"),
    ({"value": 3}, "unknown action type"),
    ({"type": "teleport"}, "unknown action type"),
    ({"type": "throw"}, "missing field"),
    ({"type": "throw", "value": 0}, "1-6"),
    ({"type": "throw", "value": 7}, "1-6"),
    ({"type": "throw", "value": True}, "1-6"),
    ({"type": "throw", "value": "4"}, "1-6"),
    ({"type": "throw", "value": 4, "source": "telepathy"}, "source"),
    ({"type": "throw", "value": 4, "extra": 1}, "unknown field"),
    ({"type": "logistics-dealt", "card": 12}, "card"),
    ({"type": "new-game", "players": "four", "expeditions": [], "sponsor": "x"}, "players"),
    ({"type": "new-game", "players": 4, "expeditions": ["martian"], "sponsor": "x"}, "expeditions"),
    ({"type": "new-game", "players": 4, "expeditions": [], "sponsor": "x", "target": -5}, "target"),
])
def test_malformed_actions_are_refused_with_a_reason(data, match):
    with pytest.raises(MalformedAction, match=match):
        action_from_json(data)


def legal_script(game, setup, choices):
    """Turn a list of random numbers into a legal game: at each step one of the moves the rules list."""
    import random

    from tests.nessie_helpers import random_action

    state, out = game.start(setup), [setup]
    for c in choices:
        if state.step.value == "over":
            break
        action = random_action(game, state, random.Random(c))
        state = game.apply(state, action)
        out.append(action)
    return out, state


@settings(max_examples=40, deadline=None)
@given(setup=st.sampled_from(SETUPS), choices=st.lists(st.integers(0, 1000), max_size=80))
def test_replay_is_deterministic(box, setup, choices):
    game = NessieHunt(box)
    script, final = legal_script(game, setup, choices)
    assert game.replay(script) == final
    assert NessieHunt(box).replay([action_from_json(json.loads(json.dumps(action_to_json(a)))) for a in script]) == final


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(setup=st.sampled_from(SETUPS),
       steps=st.lists(st.tuples(st.integers(0, 1000), st.booleans()), min_size=1, max_size=40))
def test_undo_is_replay_without_the_last_action_and_survives_reopening(box, tmp_path_factory, setup, steps):
    import random

    from tests.nessie_helpers import random_action
    game = NessieHunt(box)
    path = tmp_path_factory.mktemp("db") / "log.sqlite"
    table = Table(game, EventStore(path))
    table.new_game(setup)
    in_force = [setup]
    for choice, undo in steps:
        if undo and len(in_force) > 1:
            before_last = game.replay(in_force[:-1])
            table.undo()
            in_force.pop()
            assert table.state == before_last
            continue
        if table.state.step.value == "over":
            continue
        action = random_action(game, table.state, random.Random(choice))
        table.submit(action)
        in_force.append(action)
    assert table.state == game.replay(in_force)
    table.store.close()
    reopened = Table(NessieHunt(box), EventStore(path))  # a restart, or a pulled plug
    assert reopened.state == table.state
    assert reopened.version == table.version
    reopened.store.close()


def test_undo_never_removes_the_setup(box):
    table = Table(NessieHunt(box), EventStore())
    table.new_game(SETUPS[0])
    with pytest.raises(NothingToUndo):
        table.undo()
    table.submit(Throw(2))
    table.undo()
    with pytest.raises(NothingToUndo):
        table.undo()


def test_the_log_is_append_only_undo_keeps_the_undone_action(box):
    store = EventStore()
    table = Table(NessieHunt(box), store)
    table.new_game(SETUPS[0])
    table.submit(Throw(4))
    table.undo()
    table.submit(Throw(2))
    entries = store.entries(table.view()["game_id"])
    assert [(e.kind, e.body and e.body.get("value")) for e in entries] == [
        ("action", None), ("action", 4), ("undo", None), ("action", 2)]


def test_an_illegal_action_is_not_logged(box):
    store = EventStore()
    table = Table(NessieHunt(box), store)
    table.new_game(SETUPS[0])
    before = table.view()
    with pytest.raises(IllegalAction):
        table.submit(Advance())
    assert table.view() == before
    assert len(store.entries(before["game_id"])) == 1


def test_a_second_writer_on_the_same_file_is_refused_not_interleaved(box, tmp_path):
    """Two companions started on one database (each playing the game from its own memory) once
    interleaved their throws into a log that no longer replayed. The one that did not write last
    is refused, and nothing of its action reaches the file."""
    path = tmp_path / "shared.sqlite"
    first = Table(NessieHunt(box), EventStore(path))
    first.new_game(SETUPS[0])
    second = Table(NessieHunt(box), EventStore(path))  # started later: resumes the same game
    second.submit(Throw(3))
    before = first.view()
    with pytest.raises(StoreError, match="another process"):
        first.submit(Throw(5))  # legal in its own (stale) memory of the game
    assert first.view() == before
    rows = sqlite3.connect(path).execute("SELECT seq, body FROM log ORDER BY seq").fetchall()
    assert [seq for seq, _ in rows] == [1, 2] and json.loads(rows[-1][1])["value"] == 3
    second.submit(default_action(second.game, second.state))  # the writer that is up to date goes on
    assert Table(NessieHunt(box), EventStore(path)).version == 3  # and the log replays


def test_a_plain_read_of_the_log_does_not_hide_a_second_writer(box, tmp_path):
    """Reading a game's log to look at it (an export) must not make this store the up-to-date
    writer: only a resume does. Otherwise a read between a foreign write and our next append
    would let the append interleave."""
    path = tmp_path / "shared.sqlite"
    first = Table(NessieHunt(box), EventStore(path))
    first.new_game(SETUPS[0])
    second = Table(NessieHunt(box), EventStore(path))
    second.submit(Throw(3))
    assert len(first.store.entries(first.view()["game_id"])) == 2  # a look, not a resume
    with pytest.raises(StoreError, match="another process"):
        first.submit(Throw(5))
    first.resume()  # a resume takes the log as it is, and goes on from it
    assert first.version == 2
    first.submit(default_action(first.game, first.state))
    assert first.version == 3


def test_stale_requests_are_refused(box):
    table = Table(NessieHunt(box), EventStore())
    table.new_game(SETUPS[0])
    v = table.version
    table.submit(Throw(1), expect_version=v)
    with pytest.raises(StaleRequest):
        table.submit(Throw(1), expect_version=v)
    assert table.version == v + 1


def test_an_action_is_on_disk_before_it_is_acknowledged(box, tmp_path):
    path = tmp_path / "durable.sqlite"
    table = Table(NessieHunt(box), EventStore(path))
    table.new_game(SETUPS[0])
    table.submit(Throw(3))
    # Read with a separate connection while the first is still open: the entry is committed.
    rows = sqlite3.connect(path).execute("SELECT kind, body FROM log ORDER BY seq").fetchall()
    assert rows[-1] == ("action", '{"type":"throw","value":3,"source":"screen"}')
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_export_and_import_round_trip(box):
    game = NessieHunt(box)
    table = Table(game, EventStore())
    table.new_game(SETUPS[2])
    import random

    from tests.nessie_helpers import random_action

    rng = random.Random(4)
    for _ in range(40):
        table.submit(random_action(game, table.state, rng))
    doc = json.loads(json.dumps(table.export()))
    other = Table(NessieHunt(box), EventStore())
    other.import_game(doc)
    assert other.state == table.state


@pytest.mark.parametrize("change,match", [
    (lambda d: d.update(format="v0"), "unknown export format"),
    (lambda d: d.update(game="chess"), "not 'nessie-hunt'"),
    (lambda d: d.update(box={"name": "Other", "digest": "abc"}), "another box profile"),
    (lambda d: d.update(actions=[]), "non-empty"),
    (lambda d: d["actions"].append({"type": "advance"}), "action 3"),
    (lambda d: d["actions"].append({"type": "throw", "value": 9}), "action 3: throw: value"),
    (lambda d: d["actions"].pop(0), "action 1: the first action must be the game's setup"),
])
def test_bad_imports_are_refused_whole_and_change_nothing(box, change, match):
    table = Table(NessieHunt(box), EventStore())
    table.new_game(SETUPS[0])
    table.submit(Throw(2))
    doc = table.export()
    before = table.view()
    change(doc)
    with pytest.raises(GameImportError, match=match):
        table.import_game(doc)
    assert table.view() == before


def test_a_corrupt_log_entry_is_reported_with_its_place(box, tmp_path):
    path = tmp_path / "corrupt.sqlite"
    table = Table(NessieHunt(box), EventStore(path))
    table.new_game(SETUPS[0])
    table.submit(Throw(2))
    db = sqlite3.connect(path)
    db.execute("UPDATE log SET body = '{not json' WHERE seq = 2")
    db.commit()
    with pytest.raises(StoreError, match="entry 2 is not valid JSON"):
        Table(NessieHunt(box), EventStore(path))


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        EventStore(path)
