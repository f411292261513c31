"""The photo referee on the dashboard: upload a photo, get who covers the monster hexes, drawn over it."""

from __future__ import annotations

import base64

import pytest

from companion.vision.render import Scene, encode_jpeg, render
from companion.vision.sheets import SheetPose


def to_monster_on_d3b(client):
    """Throws that put the monster on D3b with the house-default tracks (American D, Japanese 3, British b)."""
    for value in (1, 3, 2, 4):
        assert client.post("/api/actions", json={"type": "throw", "value": value}).status_code == 200
        if client.get("/api/state").get_json()["step"] == "logistics":
            assert client.post("/api/actions", json={"type": "logistics-dealt", "card": None}).status_code == 200
    view = client.get("/api/state").get_json()
    assert view["monster"]["surface"] == "D3b"
    return view


@pytest.fixture(scope="module")
def board_photo(box):
    """A rendered photo: a British surface camera from the north-west shore over D3b."""
    scene = Scene(sheets=[SheetPose("british", "surface_camera", 347.5, 231.25, 0.0)], width=1600, height=1200, seed=3)
    image, truth = render(box, scene)
    assert truth["coverage"]["british"]["D3b"]["covered"]
    return encode_jpeg(image)


def post_photo(client, data: bytes, name="board.jpg"):
    return client.post("/api/photo", json={"image": "data:image/jpeg;base64," + base64.b64encode(data).decode(), "name": name})


def test_the_photo_says_who_takes_evidence_and_where_to_draw_it(client, board_photo):
    before = to_monster_on_d3b(client)
    r = post_photo(client, board_photo)
    assert r.status_code == 200, r.get_json()
    doc = r.get_json()
    assert doc["monsters"]["surface"] == "D3b"
    assert {(a["expedition"], a["monster"], a["equipment"]) for a in doc["evidence"]} >= {("british", "D3b", "surface_camera")}
    assert "D3b" in doc["expeditions"]["british"]["covered"]
    shapes = [s for s in doc["overlay"] if s["kind"] == "monster" and s["surface"]]
    assert shapes and len(shapes[0]["points_px"]) == 6
    xs = [p[0] for p in shapes[0]["points_px"]]
    assert 0 <= min(xs) and max(xs) <= doc["photo"]["width"]
    assert client.get("/api/state").get_json()["version"] == before["version"]  # reading a photo changes nothing


@pytest.mark.parametrize("body,status,message", [
    ({"image": "!!!not base64"}, 400, "not valid base64"),
    ({"name": "x"}, 400, "send"),
    ({"image": base64.b64encode(b"GIF89a not really").decode()}, 422, "not an image"),
    ({"image": base64.b64encode(b"\xff\xd8\xff\xe0" + b"\x00" * 500).decode()}, 422, "truncated"),
])
def test_bad_photos_get_a_clear_refusal(client, body, status, message):
    before = client.get("/api/state").get_json()
    r = client.post("/api/photo", json=body)
    assert r.status_code == status and message in r.get_json()["error"]
    assert client.get("/api/state").get_json() == before


def test_a_photo_of_something_else_is_refused(client):
    import numpy as np

    noise = (np.random.default_rng(1).random((900, 1200, 3)) * 255).astype("uint8")
    r = post_photo(client, encode_jpeg(noise))
    assert r.status_code == 422 and "refused" in r.get_json()["error"]


def test_photo_page_is_served(client):
    assert client.get("/photo").status_code == 200


@pytest.mark.browser
def test_upload_from_the_page_draws_the_verdict(chromium, live_server, board_photo, tmp_path):
    path = tmp_path / "board.jpg"
    path.write_bytes(board_photo)
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(live_server + "/photo")
        page.set_input_files("#file", str(path))
        page.wait_for_selector("#result:not([hidden])", timeout=30000)
        assert page.locator('#overlay polygon[data-expedition="british"]').count() > 0
        assert "Markers seen" in page.inner_text("#quality")
    finally:
        page.close()


def test_a_photo_shows_its_coverage_on_the_table_screen(client, board_photo):
    to_monster_on_d3b(client)
    assert "vision" not in client.get("/api/state").get_json()
    assert post_photo(client, board_photo).status_code == 200
    vision = client.get("/api/state").get_json()["vision"]
    assert "D3b" in vision["covered"]["british"] and vision["monsters"]["surface"] == "D3b"


def test_calibration_from_an_empty_board_is_saved_and_used(client, service, box):
    empty, _ = render(box, Scene(sheets=[], width=1600, height=1200, seed=5))
    red, _ = render(box, Scene(sheets=[SheetPose("british", "sonar", 400.0, 231.25, 0.0)], width=1600, height=1200, seed=5))
    b64 = lambda img: base64.b64encode(encode_jpeg(img)).decode()  # noqa: E731
    r = client.post("/api/calibration", json={"empty": b64(empty), "colours": {"british": b64(red)}})
    assert r.status_code == 200, r.get_json()
    doc = r.get_json()
    assert doc["empty"]["registration"]["markers_seen"] == [0, 1, 2, 3]
    assert set(doc["sheet_colours"]) == {"british"}
    from companion.web.photo import calibration
    reference, colours = calibration(service)
    assert reference is not None and list(colours["british"]) == doc["sheet_colours"]["british"]
    bad = client.post("/api/calibration", json={"empty": "%%%"})
    assert bad.status_code == 400 and "base64" in bad.get_json()["error"]


@pytest.mark.browser
def test_the_table_screen_draws_the_photos_coverage(chromium, live_server, board_photo):
    import json
    import urllib.request

    def post(path, body):
        req = urllib.request.Request(live_server + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        return json.loads(urllib.request.urlopen(req).read())

    for value in (1, 3, 2, 4):
        view = post("/api/actions", {"type": "throw", "value": value})
        if view["step"] == "logistics":
            post("/api/actions", {"type": "logistics-dealt", "card": None})
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(live_server)
        page.wait_for_selector('#status[data-connected="true"]')
        post("/api/photo", {"image": base64.b64encode(board_photo).decode(), "name": "board.jpg"})
        page.wait_for_selector('#vision-layer polygon[data-expedition="british"][data-address="D3b"]', timeout=10000)
        assert page.get_attribute('#vision-layer polygon[data-address="D3b"]', "fill") == "url(#pat-british)"
    finally:
        page.close()


def test_board_camera_preview_marker_status_and_calibration_from_it(make_service):
    from companion.web import create_app

    service = make_service(board_camera_source="sim")
    client = create_app(service, {"TESTING": True}).test_client()
    snap = client.get("/api/board-camera/snapshot.jpg")
    assert snap.status_code == 200 and snap.mimetype == "image/jpeg" and snap.data[:2] == b"\xff\xd8"
    status = client.get("/api/board-camera/status").get_json()
    assert status["ok"] and status["registration"]["markers_seen"] == [0, 1, 2, 3]
    r = client.post("/api/calibration", json={"from_camera": True})
    assert r.status_code == 200 and r.get_json()["empty"]["registration"]["markers_seen"] == [0, 1, 2, 3]
    assert b'id="preview"' in client.get("/calibrate").data


def test_without_a_board_camera_the_preview_says_so(client):
    r = client.get("/api/board-camera/status")
    assert r.status_code == 404 and "no board camera" in r.get_json()["error"]
    assert client.post("/api/calibration", json={"from_camera": True}).status_code == 409


@pytest.mark.browser
def test_calibration_wizard_shows_the_live_camera_and_its_markers(chromium, make_service, serve):
    service = make_service(board_camera_source="sim")
    url = serve(service, threads=8)
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{url}/calibrate")
        page.wait_for_selector('#markers[data-ok="true"]', timeout=20000)
        assert "Markers seen: 0, 1, 2, 3" in page.inner_text("#markers")
        assert page.evaluate("document.getElementById('preview').naturalWidth") > 0
        page.click("#from-camera")
        page.wait_for_function("document.getElementById('status').textContent.startsWith('Calibrated')", timeout=30000)
    finally:
        page.close()
