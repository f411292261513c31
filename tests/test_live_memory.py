"""Live mode survives a restart (a pulled plug): the sheets it followed, where they were placed and
the board view it checked them against are kept in SQLite beside the game log, so a sheet moved
while the companion was off is still flagged, and a damaged memory only means starting afresh."""

from __future__ import annotations

import time

import pytest

from companion.config import Config
from companion.live_memory import LiveMemory, memory_path
from companion.vision.live import MOVED_MM, LiveBoard, outline_deviation_mm
from companion.vision.sheets import SheetPose
from tests.test_vision_live import BOX, NORTH_SHORE, POSE_MM, Clock, _to_purchase, frame, place, show

SONAR = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
EYE = SheetPose("american", "eye_witness", 455.0, NORTH_SHORE - 2.0, -21.0)


def _followed(tmp_path):
    """Two sheets placed and settled, remembered in a memory file; returns the memory file's path."""
    live = LiveBoard(BOX, still_frames=2)
    live.clock = Clock()
    assert show(live, live.clock, frame()) == "still"
    place(live, SONAR, 1, settle_after=True)
    place(live, EYE, 2, SONAR, settle_after=True)
    store = LiveMemory(tmp_path / "live-board.sqlite")
    store.save(7, live.remember())
    store.close()
    return tmp_path / "live-board.sqlite"


def _restarted(path, pieces=None):
    store = LiveMemory(path)
    memory = store.load(7)
    store.close()
    live = LiveBoard(BOX, still_frames=2)
    live.clock = Clock()
    assert live.recall(memory, live.clock.t, pieces) == (2 if pieces is None else len(pieces))
    return live


def test_a_sheet_moved_while_the_companion_was_off_is_flagged(tmp_path):
    live = _restarted(_followed(tmp_path))
    slid = SheetPose("british", "sonar", 206.0, NORTH_SHORE + 2.0, 9.0)
    assert show(live, live.clock, frame(slid, EYE)) == "still"
    st = live.status()
    assert [(m["piece"], m["gone"]) for m in st["moved"]] == [(1, False)]
    assert st["moved"][0]["moved_by_mm"] > MOVED_MM
    assert show(live, live.clock, frame(SONAR, EYE)) == "still"  # put back
    assert live.status()["moved"] == []


def test_sheets_left_alone_while_off_are_still_followed_and_not_flagged(tmp_path):
    live = _restarted(_followed(tmp_path))
    assert show(live, live.clock, frame(SONAR, EYE)) == "still"
    st = live.status()
    assert st["moved"] == [] and st["violations"] == [] and st["unexpected"] == []
    assert sorted((s["piece"], s["status"]) for s in st["sheets"]) == [(1, "placed"), (2, "placed")]


def test_a_piece_the_game_no_longer_has_is_not_followed(tmp_path):
    live = _restarted(_followed(tmp_path), pieces={2})
    assert [s["piece"] for s in live.status()["sheets"]] == [2]


def test_a_damaged_memory_is_dropped_not_trusted(tmp_path):
    path = _followed(tmp_path)
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("UPDATE live_board SET plane = ?", (b"not a png",))
    store = LiveMemory(path)
    assert store.load(7) is None
    assert store.load(8) is None  # another game: nothing
    store.close()


def test_a_memory_of_another_grid_is_refused(tmp_path):
    store = LiveMemory(_followed(tmp_path))
    memory = store.load(7)
    memory["plane"], memory["valid"] = memory["plane"][:-4], memory["valid"][:-4]
    with pytest.raises(ValueError, match="grid"):
        LiveBoard(BOX).recall(memory)


def test_only_the_current_games_memory_is_kept(tmp_path):
    path = _followed(tmp_path)
    store = LiveMemory(path)
    memory = store.load(7)
    store.save(8, memory)
    assert store.load(7) is None and store.load(8) is not None
    store.close()
    assert memory_path(":memory:") is None and memory_path(str(tmp_path / "g.sqlite")).name == "live-board.sqlite"


def _wait(predicate, service, timeout_s: float = 90.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        st = service.board_camera.live_status()
        if predicate(st) or time.monotonic() > deadline:
            return st
        time.sleep(0.3)


def test_the_service_restarted_on_the_same_database_flags_a_sheet_moved_meanwhile(tmp_path):
    from companion.games.nessie_hunt import Buy
    from companion.service import Service

    config = Config(database=str(tmp_path / "game.sqlite"), board_camera_source="sim")
    service = Service(config)
    try:
        assert _wait(lambda st: st["state"] == "still", service)["state"] == "still"
        _to_purchase(service.table)
        service.table.submit(Buy("surface_camera"))
        st = _wait(lambda st: any(s["status"] == "placing" for s in st["sheets"]), service)
        [piece] = [s["piece"] for s in st["sheets"] if s["equipment"] == "surface_camera"]
        service.board_camera.live.settle()  # the turn is over: placed where it lies
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # written by the live thread at its next frame
            saved = LiveMemory(memory_path(config.database)).load(service.table.game_id)
            if saved and [s["status"] for s in saved["sheets"]] == ["placed"]:
                break
            time.sleep(0.3)
        assert saved and saved["sheets"][0]["piece"] == piece
        laid = service.board_camera._camera.sheets[-1]
    finally:
        service.close()  # the plug is pulled (the memory was already on disk)

    again = Service(config)
    try:
        st = _wait(lambda st: st["state"] == "still" and st["has_reference"], again)
        assert [(s["piece"], s["status"]) for s in st["sheets"]] == [(piece, "placed")]
        assert st["moved"] == [], st
        camera = again.board_camera._camera  # the demo's board kept the sheet where it lay (as live mode saw it)
        [kept] = camera.sheets
        assert outline_deviation_mm(kept, laid, BOX.equipment[laid.equipment].shape) <= POSE_MM
        with camera._lock:  # somebody slid it while the companion was off
            camera.sheets[-1] = SheetPose(laid.expedition, laid.equipment, laid.x + 8.0, laid.y + 3.0, laid.angle_deg + 4.0)
        camera.redraw()
        st = _wait(lambda st: st["moved"], again)
        assert [m["piece"] for m in st["moved"]] == [piece], st
    finally:
        again.close()
