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
