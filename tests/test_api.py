"""The JSON API: what it answers, and that every bad request gets a 4xx with a message and changes nothing."""

from __future__ import annotations

import json

import pytest


def state(client):
    return client.get("/api/state").get_json()


def test_state_after_start_is_a_four_player_game(client):
    s = state(client)
    assert s["started"] and s["round"] == 1 and s["turn"] == "independent"
    assert s["prompt"] == "Stage one, round 1. INDEPENDENT: throw the die."
    assert s["legal"] == [{"type": "throw", "token": "independent", "by": "independent", "values": [1, 2, 3, 4, 5, 6]}]


def test_a_throw_moves_the_leader(client):
    before = state(client)
    r = client.post("/api/actions", json={"type": "throw", "value": 4, "expect_version": before["version"]})
    assert r.status_code == 200
    after = r.get_json()
    leader = {l["expedition"]: l for l in after["leaders"]}["independent"]
    assert leader["space"] == 4 and after["last_throw"]["source"] == "screen"
    assert after["version"] == before["version"] + 1
    assert state(client) == after


def test_undo_and_roll(client):
    client.post("/api/actions", json={"type": "throw", "value": 2})
    r = client.post("/api/undo")
    assert r.status_code == 200 and r.get_json()["last_throw"] is None
    r = client.post("/api/roll")
    assert r.status_code == 200 and r.get_json()["last_throw"]["source"] == "virtual-die"


BAD = [
    ("post", "/api/actions", {"data": "not json", "content_type": "application/json"}, 400, "not valid JSON"),
    ("post", "/api/actions", {"data": "type=throw", "content_type": "application/x-www-form-urlencoded"}, 415, "send JSON"),
    ("post", "/api/actions", {"json": [1, 2]}, 400, "JSON object"),
    ("post", "/api/actions", {"json": {"type": "teleport"}}, 400, "unknown action type"),
    ("post", "/api/actions", {"json": {"type": "throw", "value": 7}}, 400, "1-6"),
    ("post", "/api/actions", {"json": {"type": "throw", "value": 3, "expect_version": "x"}}, 400, "expect_version"),
    ("post", "/api/actions", {"json": {"type": "throw", "value": 3, "expect_version": 999}}, 409, "moved on"),
    ("post", "/api/actions", {"json": {"type": "advance"}}, 409, "not yet"),
    ("post", "/api/actions", {"json": {"type": "logistics-dealt"}}, 409, "no LOGISTICS card"),
    ("post", "/api/actions", {"json": {"type": "new-game", "players": 7, "expeditions": [], "sponsor": "x"}}, 409, "1 (solitaire) to 5"),
    ("post", "/api/undo", {}, 409, "nothing to undo"),
    ("post", "/api/import", {"json": {"format": "nope"}}, 400, "unknown export format"),
    ("get", "/api/locate/Z9z", {}, 400, "not a loch address"),
    ("get", "/api/nowhere", {}, 404, "Not Found"),
    ("delete", "/api/state", {}, 405, "not allowed"),
    ("post", "/api/actions", {"data": "x" * (2 * 1024 * 1024), "content_type": "application/json"}, 413, "large"),
]


@pytest.mark.parametrize("method,path,kwargs,status,message", BAD, ids=[f"{b[1]}-{b[3]}-{b[4]}" for b in BAD])
def test_bad_requests_get_a_4xx_with_a_message_and_change_nothing(client, method, path, kwargs, status, message):
    before = state(client)
    r = getattr(client, method)(path, **kwargs)
    assert r.status_code == status
    body = r.get_json()
    assert message.lower() in body["error"].lower()
    assert state(client) == before


def test_an_illegal_move_names_the_rule(client):
    r = client.post("/api/actions", json={"type": "advance"})
    assert r.get_json()["rule"].startswith("INDEPENDENT always plays first")


def test_board_and_locate(client):
    board = client.get("/api/board").get_json()
    assert len(board["hexes"]) == 288
    assert client.get("/api/locate/D3b").get_json()["submerged"]["left"] == "C5b"


def test_export_then_import_starts_the_same_game_anew(client):
    client.post("/api/actions", json={"type": "throw", "value": 5})
    exported = client.get("/api/export")
    assert "attachment" in exported.headers["Content-Disposition"]
    doc = exported.get_json()
    r = client.post("/api/import", data=json.dumps(doc), content_type="application/json")
    assert r.status_code == 200
    imported = r.get_json()
    assert imported["game_id"] != doc.get("game_id") and imported["actions"] == 2
    assert {l["expedition"]: l["space"] for l in imported["leaders"]}["independent"] == 5


def test_event_stream_sends_the_current_view_first(app):
    client = app.test_client()
    response = client.get("/api/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = response.response
    first = b""
    while b"event: view" not in first:
        first += next(chunks)
    payload = next(chunks) if not first.rstrip().endswith(b"}") else b""
    text = (first + payload).decode()
    data = json.loads(text.split("data: ", 1)[1].split("\n", 1)[0])
    assert data["turn"] == "independent"
    response.close()


def test_health_lists_the_virtual_die(client):
    devices = client.get("/api/health").get_json()["devices"]
    assert devices["virtual die"]["connected"] is True


def test_table_page_is_served(client):
    r = client.get("/")
    assert r.status_code == 200 and b'id="map"' in r.data
    assert client.get("/static/table.js").status_code == 200


def test_games_are_listed_and_an_unknown_game_is_a_404(client):
    games = client.get("/api/games").get_json()
    assert games[0] == {"id": "nessie-hunt", "name": "Nessie Hunt", "rulebook": "000_5221d2090e374035.txt", "started": True}
    assert client.get("/api/games/nessie-hunt/state").get_json() == client.get("/api/state").get_json()
    r = client.get("/api/games/chess/state")
    assert r.status_code == 404 and "no game 'chess'" in r.get_json()["error"]


def test_a_won_solitaire_game_enters_the_high_score_table(make_service):
    """Issue 3: 'the number of rounds needed to prove the monster is the solitaire score, kept in a
    high-score table'."""
    from dataclasses import replace

    from companion.games.nessie_hunt.state import Card
    from companion.web import create_app
    from tests.nessie_helpers import setx

    service = make_service(players=1, expeditions=["british"])
    client = create_app(service, {"TESTING": True}).test_client()
    table = service.table
    # A position set up by hand: British holds 750 points of cards (the log only sees the actions after).
    table._states[-1] = setx(table.state, "british", cards=(Card("cage", 525, 0), Card("cage", 225, 0)))
    while table.state.step.value != "over":
        kind = table.view()["legal"][0]["type"]
        body = {"throw": {"type": "throw", "value": 1}, "logistics-dealt": {"type": "logistics-dealt", "card": None},
                "coverage": {"type": "coverage", "covers": []}, "end-turn": {"type": "end-turn"}}.get(kind, {"type": "advance"})
        if kind == "evidence-card":
            body = {"type": "evidence-card", "points": table.view()["legal"][0]["values"][0]}
        assert client.post("/api/actions", json=body).status_code == 200
    view = client.get("/api/state").get_json()
    assert view["outcome"]["recount"]["british"]["total"] == view["outcome"]["points"]["british"] >= 750
    scores = client.get("/api/highscores").get_json()
    assert scores == [{"expedition": "british", "rounds": view["round"], "points": view["outcome"]["points"]["british"],
                       "at": scores[0]["at"], "game_id": view["game_id"]}]


def test_tally_sheet_json_and_csv(client):
    for body in ({"type": "throw", "value": 2}, {"type": "throw", "value": 3}):
        assert client.post("/api/actions", json=body).status_code == 200
    tally = client.get("/api/tally").get_json()
    assert tally["expeditions"] == ["independent", "japanese", "british", "american"]
    assert tally["rounds"][0]["expeditions"]["independent"]["cash"] == 50
    assert [h["action"]["type"] for h in tally["history"]] == ["new-game", "throw", "throw"]
    csv = client.get("/api/tally.csv")
    assert csv.mimetype == "text/csv"
    lines = csv.data.decode().splitlines()
    assert lines[0].startswith("round,independent gained,independent points,independent cash")
    assert lines[1].split(",")[:4] == ["1", "0", "0", "50"]


@pytest.mark.parametrize("page", ["/", "/tally", "/setup", "/devices"])
def test_pages_are_served(client, page):
    assert client.get(page).status_code == 200


def test_join_qr_only_in_lan_mode(service):
    from companion.web import create_app

    local = create_app(service, {"TESTING": True}).test_client()
    assert local.get("/api/join.svg").status_code == 404
    assert b"join-qr" not in local.get("/").data
    lan = create_app(service, {"TESTING": True, "LAN_MODE": True}).test_client()
    r = lan.get("/api/join.svg", headers={"Host": "192.0.2.7:5000"})
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    assert b"join-qr" in lan.get("/").data


def test_join_url_prefers_the_address_the_page_was_reached_on():
    from companion.netinfo import join_url

    assert join_url("192.0.2.7:5000") == "http://192.0.2.7:5000/"
    assert join_url("table.local", 5000) == "http://table.local:5000/"


def test_a_simulated_serial_board_throws_into_the_game_and_lights_the_turn(make_service):
    """The demo's twin of the Pico board on a pseudo-terminal feeds the same action the buttons do."""
    import time

    service = make_service(serial_board="simulated")
    board = next(s for s in service.sources if "serial" in s.name)
    deadline = time.monotonic() + 10
    while not board.health.connected and time.monotonic() < deadline:
        time.sleep(0.05)
    board.twin.press("4")
    while service.table.view()["last_throw"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
    last = service.table.view()["last_throw"]
    assert last["value"] == 4 and last["source"] == "serial"
    assert service.health()[board.name]["last_event"] == "throw 4"
    service.table.resume()  # the logged throw reads back
    assert service.table.view()["last_throw"]["source"] == "serial"


def test_voice_is_listed_with_the_devices_and_silent_when_off(client):
    voice = client.get("/api/health").get_json()["devices"]["voice"]
    assert voice["kind"] == "voice" and voice["connected"] is False and voice["details"]["status"] == "voice: off"


def test_voice_reads_the_prompts_aloud_when_enabled(make_service, tmp_path):
    """With espeak-ng (make test installs it) and wav_dir set, each new prompt becomes a WAV file."""
    import shutil
    import wave

    assert shutil.which("espeak-ng"), "make test installs Debian's espeak-ng"
    service = make_service(voice_enabled=True, voice_wav_dir=str(tmp_path / "voice"))
    from companion.games.nessie_hunt import Throw

    service.table.submit(Throw(2))
    assert service.voice.wait_idle(20)
    files = sorted((tmp_path / "voice").glob("*.wav"))
    assert files
    with wave.open(str(files[-1])) as w:
        assert w.getnframes() / w.getframerate() > 0.5


def test_the_simulated_dice_camera_throws_into_the_game(make_service):
    """The demo's dice camera twin: rendered throws come to rest and are read, one throw per throw."""
    import time

    service = make_service(camera_enabled=True, camera_source="sim", camera_fps=30.0)
    camera = next(s for s in service.sources if s.kind == "camera")
    deadline = time.monotonic() + 60
    while service.table.view()["last_throw"] is None and time.monotonic() < deadline:
        time.sleep(0.1)
    last = service.table.view()["last_throw"]
    assert last is not None and last["source"] == "camera" and 1 <= last["value"] <= 6
    assert service.health()[camera.name]["connected"] is True


def test_choosing_the_game_the_boards_play(client):
    assert client.get("/api/health").get_json()["input_game"] == "nessie-hunt"
    r = client.post("/api/inputs/game", json={"game": "loch-ness-obert"})
    assert r.status_code == 200, r.get_json()
    assert client.get("/api/health").get_json()["input_game"] == "loch-ness-obert"
    for bad in ({"game": "chess"}, {"game": 3}, {}):
        r = client.post("/api/inputs/game", json=bad)
        assert r.status_code == 400 and r.get_json()["error"]
    assert client.get("/api/health").get_json()["input_game"] == "loch-ness-obert"
