"""Live mode on rendered frame sequences: still views only, a bought sheet found and checked against
the placement rules while it can still be fixed, moved sheets flagged, bad input never a wrong call."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import pytest

from companion.box_profiles import load_box
from companion.vision.live import MOVED_MM, LiveBoard, outline_deviation_mm
from companion.vision.render import Scene, render
from companion.vision.sheets import SheetPose

BOX = load_box()
CAMERA = {"tilt_deg": 12.0, "azimuth_deg": 20.0, "fov_deg": 60.0, "fill": 0.9}
NORTH_SHORE = min(p[1] for p in BOX.loch.shore_outline)  # the straight top edges of the northern hexes
#: Pose tolerance measured on these renders (outline deviation; see docs/board-vision-live.md).
POSE_MM = 1.0


@lru_cache(maxsize=64)
def _frame(sheets: tuple, camera: tuple = tuple(CAMERA.items()), hands: tuple = (), seed: int = 3):
    scene = Scene(sheets=list(sheets), width=1280, height=960, camera=dict(camera), seed=seed,
                  hands=[{"polygon_mm": [list(p) for p in h]} for h in hands])
    photo, _ = render(BOX, scene)
    frame = cv2.cvtColor(photo, cv2.COLOR_RGB2BGR)
    frame.setflags(write=False)
    return frame


def frame(*sheets: SheetPose, camera: dict | None = None, hands=(), seed: int = 3):
    cam = tuple((camera or CAMERA).items())
    return _frame(tuple(sheets), cam, tuple(tuple(map(tuple, h)) for h in hands), seed)


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self) -> float:
        self.t += 0.25
        return self.t


def show(live: LiveBoard, clock: Clock, image, frames: int = 3) -> str:
    """The same view for a few frames: a still view (the first frame differs from the last view)."""
    state = None
    for _ in range(frames):
        state = live.feed(image, clock())
    return state


@pytest.fixture
def live():
    board = LiveBoard(BOX, still_frames=2)
    clock = Clock()
    assert show(board, clock, frame()) == "still"
    assert board.status()["has_reference"]
    board.clock = clock
    return board


def sheet(live: LiveBoard, piece: int):
    return next(s for s in live.status()["sheets"] if s["piece"] == piece)


def pose_of(d: dict) -> SheetPose:
    return SheetPose.from_json(d["pose"])


def place(live, pose: SheetPose, piece: int, *others: SheetPose, settle_after: bool = False):
    live.purchased(pose.expedition, pose.equipment, piece, live.clock.t)
    assert show(live, live.clock, frame(*others, pose)) == "still", live.status()["message"]
    if settle_after:
        live.settle(live.clock.t)
    return sheet(live, piece)


# -- still views ---------------------------------------------------------------------------------

def test_a_moving_hand_or_a_shaking_camera_is_never_looked_at(live):
    looked = live.status()["still_views"]
    live.purchased("british", "sonar", 1, live.clock.t)
    sonar = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
    for i in range(8):  # a hand sweeping across the loch, putting the sheet down
        x = 150 + 25 * i
        hand = [[x - 30, 560], [x + 30, 560], [x + 35, 300], [x - 30, 300]]
        assert live.feed(frame(sonar, hands=[hand]), live.clock()) == "moving"
    for i in range(8):  # the camera shaking on its stand
        cam = dict(CAMERA, offset_px=(6.0 * (-1) ** i, 3.0 * i))
        assert live.feed(frame(sonar, camera=cam), live.clock()) == "moving"
    assert live.status()["still_views"] == looked
    assert live.status()["waiting_for"] == [{"piece": 1, "expedition": "british", "equipment": "sonar"}]


def test_a_still_hand_over_the_loch_is_obstructed_and_makes_no_call(live):
    live.purchased("british", "sonar", 1, live.clock.t)
    sonar = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
    hand = [[170, 560], [240, 560], [250, 270], [215, 250], [170, 275]]
    assert show(live, live.clock, frame(sonar, hands=[hand])) == "obstructed"
    st = live.status()
    assert "not a sheet" in st["message"] or "hand" in st["message"]
    assert st["waiting_for"] and st["sheets"][0]["pose"] is None and st["violations"] == []
    # the hand goes: the sheet is found
    assert show(live, live.clock, frame(sonar)) == "still"
    assert sheet(live, 1)["status"] == "placing"


def test_covered_markers_or_a_dark_frame_are_obstructed_not_a_call(live):
    dark = np.zeros((960, 1280, 3), np.uint8)
    assert show(live, live.clock, dark) == "obstructed"
    assert "too dark" in live.status()["message"]
    assert live.status()["sheets"] == []


# -- a purchase, then the placement --------------------------------------------------------------

@pytest.mark.parametrize("truth", [
    SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 8.0),
    SheetPose("american", "eye_witness", 455.0, NORTH_SHORE - 2.0, -21.0),
    SheetPose("japanese", "underwater_camera", 610.0, 331.0, 176.0),
    SheetPose("independent", "biological_unit", 330.0, 283.0, 17.0),
    SheetPose("american", "cage", 347.5, 268.75, 0.0),
])
def test_a_bought_sheet_is_found_with_its_type_and_pose(live, truth):
    got = place(live, truth, 7)
    assert got["status"] == "placing" and got["equipment"] == truth.equipment
    pose = pose_of(got)
    dev = outline_deviation_mm(pose, truth, BOX.equipment[truth.equipment].shape)
    assert dev <= POSE_MM, (pose, truth, dev)
    assert got["violations"] == []
    assert live.status()["unexpected"] == []


def test_the_sheet_placed_before_the_purchase_is_recorded_is_still_found(live):
    sonar = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
    assert show(live, live.clock, frame(sonar)) == "still"
    assert [u["kind"] for u in live.status()["unexpected"]] == ["sheet arrived"]
    live.purchased("british", "sonar", 3, live.clock.t)
    live.feed(frame(sonar), live.clock())  # the same still view, looked at again for the purchase
    assert sheet(live, 3)["status"] == "placing"
    assert live.status()["unexpected"] == []


def test_a_nudged_camera_changes_nothing(live):
    sonar = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
    place(live, sonar, 1, settle_after=True)
    moved_camera = dict(CAMERA, azimuth_deg=26.0, tilt_deg=14.0, offset_px=(25.0, -15.0))
    assert show(live, live.clock, frame(sonar, camera=moved_camera)) == "still"
    st = live.status()
    assert st["moved"] == [] and st["unexpected"] == [] and sheet(live, 1)["status"] == "placed"


# -- the placement rules, broken and fixed --------------------------------------------------------

def test_pointed_end_off_the_shore_is_reported_then_cleared_when_fixed(live):
    wrong = SheetPose("british", "surface_camera", 300.0, NORTH_SHORE + 18.0, 0.0)
    got = place(live, wrong, 4)
    assert [v["rule"] for v in got["violations"]] == ["pointed end on shore"]
    assert live.status()["violations"][0]["piece"] == 4
    fixed = SheetPose("british", "surface_camera", 302.0, NORTH_SHORE - 1.0, 3.0)
    assert show(live, live.clock, frame(fixed)) == "still"
    got = sheet(live, 4)
    assert got["violations"] == [] and live.status()["violations"] == []
    assert outline_deviation_mm(pose_of(got), fixed, BOX.equipment["surface_camera"].shape) <= POSE_MM


def test_three_own_sheets_overlapping_is_reported_then_cleared(live):
    a = SheetPose("japanese", "eye_witness", 400.0, NORTH_SHORE - 1.0, -15.0)
    b = SheetPose("japanese", "eye_witness", 430.0, NORTH_SHORE - 1.0, 15.0)
    place(live, a, 1, settle_after=True)
    place(live, b, 2, a, settle_after=True)
    assert live.status()["violations"] == []
    third = SheetPose("japanese", "surface_camera", 415.0, 335.0, 180.0)  # from the south shore, over both
    got = place(live, third, 3, a, b)
    assert "three own sheets overlap" in [v["rule"] for v in got["violations"]]
    # an opponent's sheet in the same place is no violation of the rule
    fixed = SheetPose("japanese", "surface_camera", 520.0, 335.0, 180.0)
    assert show(live, live.clock, frame(a, b, fixed)) == "still"
    assert sheet(live, 3)["violations"] == [] and live.status()["violations"] == []
    assert [s["moved"] for s in live.status()["sheets"]] == [False, False, False]


def test_an_opponents_third_sheet_is_no_violation(live):
    a = SheetPose("japanese", "eye_witness", 400.0, NORTH_SHORE - 1.0, -15.0)
    b = SheetPose("japanese", "eye_witness", 430.0, NORTH_SHORE - 1.0, 15.0)
    place(live, a, 1, settle_after=True)
    place(live, b, 2, a, settle_after=True)
    third = SheetPose("american", "surface_camera", 415.0, 335.0, 180.0)
    assert place(live, third, 3, a, b)["violations"] == []


def test_a_cage_over_two_hexes_is_reported_then_cleared(live):
    h = BOX.loch.parse("D3c")
    between = SheetPose("american", "cage", h.center[0], h.center[1] + 7.5, 0.0)  # on the border with D3d
    got = place(live, between, 9)
    assert [v["rule"] for v in got["violations"]] == ["cage in one hex"]
    inside = SheetPose("american", "cage", h.center[0], h.center[1], 0.0)
    assert show(live, live.clock, frame(inside)) == "still"
    assert sheet(live, 9)["violations"] == []


# -- moved sheets ----------------------------------------------------------------------------------

def test_a_placed_sheet_moved_is_flagged_and_cleared_when_put_back(live):
    sonar = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
    eye = SheetPose("american", "eye_witness", 455.0, NORTH_SHORE - 2.0, -21.0)
    place(live, sonar, 1, settle_after=True)
    place(live, eye, 2, sonar, settle_after=True)
    slid = SheetPose("british", "sonar", 206.0, NORTH_SHORE + 2.0, 9.0)
    assert show(live, live.clock, frame(slid, eye)) == "still"
    st = live.status()
    assert [(m["piece"], m["gone"]) for m in st["moved"]] == [(1, False)]
    assert st["moved"][0]["moved_by_mm"] > MOVED_MM
    assert not sheet(live, 2)["moved"]
    assert show(live, live.clock, frame(sonar, eye)) == "still"  # put back
    assert live.status()["moved"] == []


def test_a_sheet_nudged_within_the_tolerance_is_not_flagged(live):
    sonar = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
    place(live, sonar, 1, settle_after=True)
    nudged = SheetPose("british", "sonar", 200.6, NORTH_SHORE - 1.0, 5.0)
    assert show(live, live.clock, frame(nudged)) == "still"
    assert live.status()["moved"] == []


def test_a_placed_sheet_taken_away_is_flagged_gone(live):
    cage = SheetPose("american", "cage", 347.5, 268.75, 0.0)
    place(live, cage, 5, settle_after=True)
    assert show(live, live.clock, frame()) == "still"
    assert live.status()["moved"] == [{"piece": 5, "expedition": "american", "equipment": "cage",
                                       "gone": True, "moved_by_mm": None}]


def test_a_returned_sheet_leaves_the_tracking_when_taken_off(live):
    cage = SheetPose("american", "cage", 347.5, 268.75, 0.0)
    place(live, cage, 5, settle_after=True)
    live.returned(5, live.clock.t)
    assert sheet(live, 5)["status"] == "returned"
    assert show(live, live.clock, frame()) == "still"
    assert live.status()["sheets"] == [] and live.status()["moved"] == []


# -- bad input -------------------------------------------------------------------------------------

def test_the_camera_stopping_or_garbage_frames_change_nothing(live):
    sonar = SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0)
    place(live, sonar, 1, settle_after=True)
    before = live.status()["sheets"]
    live.camera_failed("board camera: unplugged", live.clock())
    assert live.status()["state"] == "no camera" and "unplugged" in live.status()["message"]
    for garbage in (None, np.zeros((10, 10, 3), np.uint8), np.zeros((480, 640), np.float32), b"jpeg"):
        assert live.feed(garbage, live.clock()) == "bad frame"
    noise = np.random.default_rng(1).integers(0, 256, (960, 1280, 3), dtype=np.uint8)
    assert show(live, live.clock, noise) in ("moving", "obstructed")
    assert live.status()["sheets"] == before
    assert show(live, live.clock, frame(sonar)) == "still"  # back: the same board, nothing moved
    assert live.status()["sheets"] == before and live.status()["moved"] == []


def test_unknown_equipment_is_refused():
    with pytest.raises(ValueError):
        LiveBoard(BOX).purchased("british", "submarine")


# -- wired: the service's board camera, the table and the route ------------------------------------

def _wait_for(client, predicate, timeout_s: float = 90.0) -> dict:
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        st = client.get("/api/board-camera/live").get_json()
        if predicate(st) or time.monotonic() > deadline:
            return st
        time.sleep(0.3)


def test_the_route_follows_a_purchase_on_the_simulated_board(make_service):
    from companion.games.nessie_hunt import Buy
    from companion.web import create_app

    service = make_service(board_camera_source="sim")
    client = create_app(service, {"TESTING": True}).test_client()
    st = _wait_for(client, lambda st: st["state"] == "still" and st["has_reference"])
    assert st["state"] == "still", st
    _to_purchase(service.table)
    service.table.submit(Buy("surface_camera"))
    st = _wait_for(client, lambda st: any(s["status"] == "placing" for s in st["sheets"]))
    [got] = [s for s in st["sheets"] if s["equipment"] == "surface_camera"]
    assert got["status"] == "placing", st
    # where the simulated board put it
    [laid] = [p for p in service.board_camera._camera.sheets if p.equipment == "surface_camera"]
    assert outline_deviation_mm(pose_of(got), laid, BOX.equipment["surface_camera"].shape) <= POSE_MM
    assert st["violations"] == [] and st["moved"] == [] and st["camera"]["error"] is None
    accepted = client.post("/api/board-camera/live/accept", json={})
    assert accepted.status_code == 200


def test_without_a_board_camera_live_mode_says_so(client):
    r = client.get("/api/board-camera/live")
    assert r.status_code == 404 and "no board camera" in r.get_json()["error"]
    assert client.post("/api/board-camera/live/accept", json={}).status_code == 409


def _to_purchase(table):
    from companion.games.nessie_hunt.state import Step
    from tests.nessie_helpers import default_action

    for _ in range(400):  # dull legal moves until someone may buy
        if table.state.step is Step.PURCHASE:
            return
        table.submit(default_action(table.game, table.state))
    raise AssertionError("never reached a purchase")


def lay_pointed_end_off_shore(camera):
    """From now on the simulated board's player lays every sheet with its pointed end out on the loch;
    returns the board's own ``lay`` and the list of poses the game asked for."""
    real, asked = camera.lay, []
    camera.lay = lambda pose, redraw=True: asked.append(pose) or real(
        SheetPose(pose.expedition, pose.equipment, 300.0, NORTH_SHORE + 18.0, 0.0), redraw)
    return real, asked


@pytest.mark.browser
def test_the_calibration_page_shows_live_mode_and_a_rule_broken(chromium, make_service, serve):
    from companion.games.nessie_hunt import Buy

    service = make_service(board_camera_source="sim")
    url = serve(service, threads=8)
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{url}/calibrate")
        page.wait_for_selector('#live[data-state="still"]', timeout=60000)
        _to_purchase(service.table)
        live = service.board_camera.live
        camera = service.board_camera._camera
        lay_pointed_end_off_shore(camera)
        service.table.submit(Buy("surface_camera"))
        page.wait_for_selector('#live-problems li[data-kind="violation"]', timeout=60000)
        text = page.inner_text("#live-problems")
        assert "pointed end" in text and "Fix it now" in text
        assert live.status()["violations"][0]["rule"] == "pointed end on shore"
    finally:
        page.close()


def test_the_board_camera_thread_reports_a_pulled_cable_and_recovers():
    import time

    from companion.board_camera import BoardCamera

    camera = BoardCamera("sim", BOX)
    try:
        camera.start_live(table=None, fps=20.0)

        def wait(pred, timeout_s=60.0):
            deadline = time.monotonic() + timeout_s
            while not pred(camera.live_status()) and time.monotonic() < deadline:
                time.sleep(0.1)
            return camera.live_status()

        assert wait(lambda st: st["state"] == "still")["state"] == "still"
        camera.live.purchased("american", "cage", 4, 0.0)
        camera._camera.lay(SheetPose("american", "cage", 347.5, 268.75, 0.0))
        st = wait(lambda st: st["sheets"][0]["status"] == "placing")
        before = st["sheets"]
        camera._camera.unplugged = True
        st = wait(lambda st: st["state"] == "no camera")
        assert st["state"] == "no camera" and "unplugged" in st["message"] and "unplugged" in st["camera"]["error"]
        assert st["sheets"] == before and camera.frame() is None
        camera._camera.unplugged = False
        st = wait(lambda st: st["state"] == "still")
        assert st["state"] == "still" and st["sheets"] == before and st["camera"]["error"] is None
    finally:
        camera.close()


def test_a_cage_laid_in_another_hex_than_the_noted_one_is_reported_then_cleared(live):
    noted, other = BOX.loch.parse("D3c"), BOX.loch.parse("D3d")
    live.purchased("american", "cage", 9, live.clock.t, hex="D3c")
    wrong = SheetPose("american", "cage", other.center[0], other.center[1], 0.0)
    assert show(live, live.clock, frame(wrong)) == "still"
    assert [v["rule"] for v in sheet(live, 9)["violations"]] == ["cage in its noted hex"]
    right = SheetPose("american", "cage", noted.center[0], noted.center[1], 0.0)
    assert show(live, live.clock, frame(right)) == "still"
    assert sheet(live, 9)["violations"] == []


def test_the_camera_adjudicates_only_its_last_clear_still_view(make_service):
    from companion.web import create_app

    service = make_service(board_camera_source="sim")
    client = create_app(service, {"TESTING": True}).test_client()
    first = client.post("/api/board-camera/adjudicate", json={})  # starts live mode: no still view yet
    assert first.status_code == 409 and "still" in first.get_json()["error"]
    _wait_for(client, lambda st: st["state"] == "still")
    camera = service.board_camera
    camera._camera.lay(SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0))
    _wait_for(client, lambda st: bool(st["unexpected"]))  # looked at: a sheet nobody bought
    doc = client.post("/api/board-camera/adjudicate", json={}).get_json()
    assert doc["schema"] == "nessie-vision-adjudication/1" and doc["photo"]["source"] == "board camera"
    assert doc["expeditions"]["british"]["covered"], doc["expeditions"]["british"]
    assert doc["image"].startswith("data:image/jpeg;base64,")
    assert service.table.view()["vision"]["photo"] == "board camera"
    # a moving view is never the one adjudicated: the last still one stays
    frame_before = camera.clear_frame()[0]
    camera.live.feed(np.zeros((960, 1280, 3), np.uint8), 1e9)
    assert camera.clear_frame()[0] is frame_before


def test_without_a_board_camera_there_is_nothing_to_adjudicate(client):
    assert client.post("/api/board-camera/adjudicate", json={}).status_code == 404


@pytest.mark.browser
def test_the_photo_page_reads_the_board_cameras_still_view(chromium, make_service, serve):
    import time

    service = make_service(board_camera_source="sim")
    url = serve(service, threads=8)
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        camera = service.board_camera
        camera.start_live(service.table)

        def wait(pred):
            deadline = time.monotonic() + 60
            while not pred(camera.live_status()) and time.monotonic() < deadline:
                time.sleep(0.2)

        wait(lambda st: st["state"] == "still")
        camera._camera.lay(SheetPose("british", "sonar", 200.0, NORTH_SHORE - 1.0, 5.0))
        wait(lambda st: bool(st["unexpected"]))
        page.goto(f"{url}/photo")
        page.click("#from-camera")
        page.wait_for_selector('#overlay polygon[data-expedition="british"]', timeout=60000)
        assert page.inner_text("#status").startswith("Read the view of")
        assert page.evaluate("document.getElementById('photo').naturalWidth") == 1600
    finally:
        page.close()


def test_two_sheets_put_down_overlapping_between_two_looks_are_both_found(live):
    a = SheetPose("british", "sonar", 300.0, NORTH_SHORE - 1.0, 10.0)
    b = SheetPose("american", "surface_camera", 310.0, 335.0, 175.0)  # over the sonar's far end
    live.purchased("british", "sonar", 1, live.clock.t)
    live.purchased("american", "surface_camera", 2, live.clock.t)
    assert show(live, live.clock, frame(a, b)) == "still"
    for piece, truth in ((1, a), (2, b)):
        got = sheet(live, piece)
        assert got["status"] == "placing"
        assert outline_deviation_mm(pose_of(got), truth, BOX.equipment[truth.equipment].shape) <= POSE_MM
    assert live.status()["unexpected"] == []


def test_a_new_game_starts_live_mode_afresh(live):
    place(live, SheetPose("american", "cage", 347.5, 268.75, 0.0), 5, settle_after=True)
    live.new_game(live.clock.t)
    st = live.status()
    assert st["sheets"] == [] and not st["has_reference"]
    assert show(live, live.clock, frame()) == "still" and live.status()["has_reference"]


def test_two_own_sheets_put_down_overlapping_at_once_are_both_found(live):
    a = SheetPose("japanese", "eye_witness", 164.0, NORTH_SHORE - 1.0, -5.0)
    b = SheetPose("japanese", "eye_witness", 181.0, NORTH_SHORE - 1.0, 23.0)  # the setting up: both at once
    live.purchased("japanese", "eye_witness", 1, live.clock.t)
    live.purchased("japanese", "eye_witness", 2, live.clock.t)
    assert show(live, live.clock, frame(a, b)) == "still"
    found = sorted((pose_of(sheet(live, p)) for p in (1, 2)), key=lambda p: p.x)
    shape = BOX.equipment["eye_witness"].shape
    assert [outline_deviation_mm(f, t, shape) <= POSE_MM for f, t in zip(found, (a, b))] == [True, True]
