"""Who may change the game (web/security.py, docs/security.md): CSRF checks in every mode, PINs in LAN
mode, the PIN rate limit, the session cookie, the bind address, and the OpenAPI document's coverage."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
import time

import pytest

from companion.config import Config, ConfigError
from companion.web import create_app
from companion.web.security import AttemptLimiter, apply_lan

TABLE_PIN, ADMIN_PIN = "2468", "13579"
THROW = {"type": "throw", "value": 4}
NEW_GAME = {"type": "new-game", "players": 3, "expeditions": ["japanese", "british", "american"], "sponsor": "american"}


def state(client):
    return client.get("/api/state").get_json()


def export(client):
    return client.get("/api/export").get_json()


@pytest.fixture
def lan_app(service):
    return create_app(service, {"TESTING": True, "LAN_MODE": True, "TABLE_PIN": TABLE_PIN, "ADMIN_PIN": ADMIN_PIN})


@pytest.fixture
def lan(lan_app):
    return lan_app.test_client()


def login(client, pin, **kw):
    return client.post("/api/login", json={"pin": pin}, **kw)


# -- CSRF, in every mode ----------------------------------------------------------------------------

CHANGES = [("/api/actions", THROW), ("/api/undo", {}), ("/api/roll", {}), ("/api/import", {"format": "x"}),
           ("/api/games/nessie-hunt/actions", THROW), ("/api/games/loch-lomond/undo", {})]


@pytest.mark.parametrize("path,body", CHANGES, ids=[c[0] for c in CHANGES])
@pytest.mark.parametrize("header,value", [("Origin", "http://evil.example"), ("Origin", "null"),
                                          ("Origin", "http://localhost:5001"),
                                          ("Referer", "http://evil.example/page.html")])
def test_a_change_from_another_site_is_refused_and_changes_nothing(client, path, body, header, value):
    before = export(client)
    r = client.post(path, json=body, headers={header: value})
    assert r.status_code == 403 and "cross-site" in r.get_json()["error"]
    assert export(client) == before


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                                          "text/plain"])
def test_a_change_that_is_not_json_is_refused_even_from_this_site(client, content_type):
    """What a cross-site HTML form (or a no-preflight fetch) can send: never accepted."""
    before = export(client)
    r = client.post("/api/actions", data=json.dumps(THROW), content_type=content_type,
                    headers={"Origin": "http://localhost"})
    assert r.status_code == 415 and "send JSON" in r.get_json()["error"]
    assert export(client) == before


def test_a_bodyless_post_needs_json_when_a_browser_sends_it(client):
    client.post("/api/actions", json=THROW)
    before = export(client)
    # A browser always sends Origin with a POST: then an empty form-less POST is refused too.
    r = client.post("/api/undo", headers={"Origin": "http://localhost"})
    assert r.status_code == 415
    assert export(client) == before
    # curl or a script (no Origin, no Referer, no body, no Content-Type) may still undo.
    assert client.post("/api/undo").status_code == 200


def test_a_change_from_this_site_as_json_is_accepted(client):
    r = client.post("/api/actions", json=THROW, headers={"Origin": "http://localhost", "Referer": "http://localhost/"})
    assert r.status_code == 200 and r.get_json()["last_throw"]["value"] == 4


def test_without_lan_mode_a_change_must_be_addressed_to_localhost(client):
    """A DNS-rebinding page reaches 127.0.0.1 under its own name: its changes are refused, reads are not."""
    before = export(client)
    r = client.post("/api/actions", json=THROW, headers={"Host": "evil.example:5000", "Origin": "http://evil.example:5000"})
    assert r.status_code == 403 and "localhost" in r.get_json()["error"]
    assert export(client) == before
    assert client.get("/api/state", headers={"Host": "evil.example:5000"}).status_code == 200
    for host in ("127.0.0.1:5000", "[::1]:5000", "localhost"):
        assert client.post("/api/roll", json={}, headers={"Host": host}).status_code == 200


def test_unknown_paths_and_methods_still_get_404_and_405(client):
    assert client.post("/api/nowhere", data="x", content_type="text/plain").status_code == 404
    assert client.delete("/api/state", headers={"Origin": "http://evil.example"}).status_code == 405


def test_without_lan_mode_no_pin_is_needed_or_taken(client):
    assert client.get("/api/session").get_json() == {"lan": False, "role": "admin"}
    r = login(client, "1234")
    assert r.status_code == 409 and "no PIN is needed" in r.get_json()["error"]
    assert client.post("/api/actions", json=NEW_GAME).status_code == 200
    assert b"No PIN is needed" in client.get("/login").data


# -- LAN mode -----------------------------------------------------------------------------------------

def test_lan_mode_refuses_a_change_without_the_pin_and_changes_nothing(lan):
    before = export(lan)
    for path, body in CHANGES[:4]:
        r = lan.post(path, json=body)
        assert r.status_code == 401, path
        assert r.get_json() == {"error": "enter the table PIN to change the game", "status": 401, "login": "/login"}
    assert export(lan) == before
    # Reading stays open on the LAN.
    assert lan.get("/api/state").status_code == 200 and lan.get("/").status_code == 200
    assert lan.get("/api/session").get_json() == {"lan": True, "role": None}


def test_the_table_pin_allows_play_but_not_setup_or_import(lan):
    r = login(lan, TABLE_PIN)
    assert r.status_code == 200 and r.get_json() == {"lan": True, "role": "table"}
    assert lan.get("/api/session").get_json()["role"] == "table"
    assert lan.post("/api/actions", json=THROW).status_code == 200
    assert lan.post("/api/undo", json={}).status_code == 200
    assert lan.post("/api/roll", json={}).status_code == 200
    before = export(lan)
    for path, body in [("/api/actions", NEW_GAME), ("/api/import", before), ("/api/games/nessie-hunt/import", before),
                       ("/api/games/loch-lomond/actions", {"type": "new-game", "players": 2})]:
        r = lan.post(path, json=body)
        assert r.status_code == 403 and "admin PIN" in r.get_json()["error"], path
    assert export(lan) == before


def test_the_admin_pin_allows_play_setup_and_import(lan):
    assert login(lan, ADMIN_PIN).get_json()["role"] == "admin"
    assert lan.post("/api/actions", json=THROW).status_code == 200
    doc = export(lan)
    r = lan.post("/api/actions", json=NEW_GAME)
    assert r.status_code == 200 and r.get_json()["seating"]["players"] == 3
    r = lan.post("/api/import", json=doc)
    assert r.status_code == 200 and r.get_json()["actions"] == 2


def test_a_wrong_pin_is_refused_and_says_how_many_tries_are_left(lan):
    r = login(lan, "0000")
    assert r.status_code == 401 and r.get_json()["tries_left"] == 4
    assert lan.post("/api/actions", json=THROW).status_code == 401
    for bad in ({"pin": 1234}, {"pin": ""}, {"pin": "1" * 65}, {"pin": TABLE_PIN, "x": 1}, [TABLE_PIN]):
        r = lan.post("/api/login", json=bad)
        assert r.status_code == 400 and r.get_json()["error"]


def test_pin_attempts_are_rate_limited_per_address(lan_app):
    clock = [1000.0]
    lan_app.extensions["pin_limiter"].clock = lambda: clock[0]
    lan = lan_app.test_client()
    for left in (4, 3, 2, 1, 0):
        assert login(lan, "9999").get_json()["tries_left"] == left
    r = login(lan, TABLE_PIN)  # even the right PIN waits: no guessing on while blocked
    assert r.status_code == 429 and r.headers["Retry-After"] == "301" and "try again" in r.get_json()["error"]
    other = lan_app.test_client()
    assert login(other, TABLE_PIN, environ_base={"REMOTE_ADDR": "192.0.2.8"}).status_code == 200
    clock[0] += 200
    assert login(lan, TABLE_PIN).headers["Retry-After"] == "101"
    clock[0] += 101
    assert login(lan, TABLE_PIN).status_code == 200
    assert lan.post("/api/actions", json=THROW).status_code == 200


def test_a_right_pin_does_not_reset_the_count(lan_app):
    """Else a player knowing the table PIN could go on guessing the admin PIN forever."""
    lan = lan_app.test_client()
    for _ in range(4):
        login(lan, "9999")
        assert login(lan, TABLE_PIN).status_code == 200
    login(lan, "9999")
    assert login(lan, ADMIN_PIN).status_code == 429


def test_the_limiter_counts_exactly_under_threads():
    limiter = AttemptLimiter(max_failures=1000, window_s=60)
    threads = [threading.Thread(target=lambda: [limiter.failed("a") for _ in range(100)]) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert limiter.failed("a") == 1000 - 801
    assert limiter.retry_after("a") is None and limiter.retry_after("b") is None


def test_the_session_cookie_is_httponly_and_samesite_strict(lan):
    cookie = login(lan, TABLE_PIN).headers["Set-Cookie"]
    flags = {part.strip().split("=")[0].lower(): part.strip() for part in cookie.split(";")}
    assert cookie.startswith("nessie_session=")
    assert "httponly" in flags and flags["samesite"] == "SameSite=Strict"
    assert "secure" not in flags  # plain HTTP on the LAN: a Secure cookie would never come back
    assert "expires" in flags  # the login lasts LOGIN_HOURS, not for ever


def test_logout_forgets_the_pin(lan):
    login(lan, TABLE_PIN)
    assert lan.post("/api/logout", json={}).get_json() == {"lan": True, "role": None}
    assert lan.post("/api/actions", json=THROW).status_code == 401


def test_changing_a_pin_logs_out_whoever_entered_the_old_one(lan_app):
    lan = lan_app.test_client()
    login(lan, TABLE_PIN)
    lan_app.config["TABLE_PIN"] = "8642"
    assert lan.post("/api/actions", json=THROW).status_code == 401


def test_a_forged_session_is_refused(lan_app, service):
    """A cookie signed with another key (or edited) does not pass."""
    other = create_app(service, {"TESTING": True, "LAN_MODE": True, "TABLE_PIN": TABLE_PIN, "ADMIN_PIN": ADMIN_PIN,
                                 "SECRET_KEY": "not the same key at all, not the same key"})
    forger = other.test_client()
    login(forger, ADMIN_PIN)
    cookie = forger.get_cookie("nessie_session")
    victim = lan_app.test_client()
    victim.set_cookie("nessie_session", cookie.value)
    assert victim.post("/api/actions", json=THROW).status_code == 401


def test_the_secret_key_is_random_kept_beside_the_database_and_reused(service, tmp_path):
    config = {"TESTING": True, "LAN_MODE": True, "TABLE_PIN": TABLE_PIN, "ADMIN_PIN": ADMIN_PIN}
    one = create_app(service, config)
    path = tmp_path / "secret_key"
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert one.secret_key == path.read_text().strip() and len(one.secret_key) == 64
    client = one.test_client()
    login(client, TABLE_PIN)
    two = create_app(service, config)  # a restart: the same key, so the login still holds
    assert two.secret_key == one.secret_key
    again = two.test_client()
    again.set_cookie("nessie_session", client.get_cookie("nessie_session").value)
    assert again.post("/api/actions", json=THROW).status_code == 200


def test_lan_mode_without_pins_fails_closed(service):
    app = create_app(service, {"TESTING": True, "LAN_MODE": True})
    client = app.test_client()
    assert client.get("/api/state").status_code == 200
    r = client.post("/api/actions", json=THROW)
    assert r.status_code == 401 and "table PIN and an admin PIN" in r.get_json()["error"]
    assert login(client, "").status_code == 409


def test_csrf_checks_hold_in_lan_mode_too(lan):
    login(lan, ADMIN_PIN)
    before = export(lan)
    assert lan.post("/api/actions", json=THROW, headers={"Origin": "http://evil.example"}).status_code == 403
    assert lan.post("/api/actions", data="type=throw&value=4",
                    content_type="application/x-www-form-urlencoded").status_code == 415
    assert lan.post("/api/login", json={"pin": ADMIN_PIN}, headers={"Origin": "http://evil.example"}).status_code == 403
    assert export(lan) == before
    # Any host name the LAN reaches the Pi under is fine when the Origin agrees with it.
    pi = {"Host": "192.0.2.7:5000", "Origin": "http://192.0.2.7:5000"}
    assert lan.post("/api/login", json={"pin": TABLE_PIN}, headers=pi).status_code == 200
    r = lan.post("/api/actions", json=THROW, headers=pi)
    assert r.status_code == 200


def test_the_login_page_is_served(lan):
    page = lan.get("/login").data
    assert b'id="login-form"' in page and b"has not entered a PIN" in page
    login(lan, TABLE_PIN)
    assert b"entered the table PIN" in lan.get("/login").data


# -- the bind address and the command line ---------------------------------------------------------

def test_bind_address_is_loopback_unless_lan():
    assert apply_lan(Config(), environ={}).host == "127.0.0.1"
    with pytest.raises(ConfigError, match="without PINs: add --lan"):
        apply_lan(Config(host="0.0.0.0"), environ={})
    config = apply_lan(Config(lan=True), environ={"NESSIE_TABLE_PIN": TABLE_PIN, "NESSIE_ADMIN_PIN": ADMIN_PIN})
    assert (config.host, config.table_pin, config.admin_pin) == ("0.0.0.0", TABLE_PIN, ADMIN_PIN)
    kept = apply_lan(Config(lan=True, host="192.0.2.7", table_pin="1111", admin_pin="2222"), environ={})
    assert kept.host == "192.0.2.7"
    # The environment wins over the config file.
    assert apply_lan(Config(lan=True, table_pin="1111", admin_pin="2222"), environ={"NESSIE_TABLE_PIN": "3333"}).table_pin == "3333"


@pytest.mark.parametrize("pins,message", [(("", ""), "NESSIE_TABLE_PIN"), ((TABLE_PIN, ""), "admin PIN"),
                                          (("12", ADMIN_PIN), "4 to 64"), ((TABLE_PIN, TABLE_PIN), "must differ")])
def test_lan_mode_needs_two_good_pins(pins, message):
    with pytest.raises(ConfigError, match=message):
        apply_lan(Config(lan=True, table_pin=pins[0], admin_pin=pins[1]), environ={})


def test_the_config_file_takes_the_server_keys(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[server]\nlan = true\ntable_pin = "2468"\nadmin_pin = "13579"\n')
    config = Config.from_file(path)
    assert (config.lan, config.table_pin, config.admin_pin) == (True, "2468", "13579")


def _cli_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NESSIE_")}
    return {**env, "NESSIE_COMPANION_DATA": str(tmp_path), **extra}


@pytest.mark.parametrize("args", [["demo", "--lan"], ["serve", "--lan"], ["demo", "--host", "0.0.0.0"]])
def test_the_cli_refuses_to_open_the_lan_without_pins(tmp_path, args):
    r = subprocess.run([sys.executable, "-m", "companion", *args, "--port", "0"], capture_output=True, text=True,
                       timeout=60, env=_cli_env(tmp_path))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert re.search(r"PIN", r.stderr) and r.stdout == ""


def test_demo_lan_serves_on_every_address(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = _cli_env(tmp_path, NESSIE_TABLE_PIN=TABLE_PIN, NESSIE_ADMIN_PIN=ADMIN_PIN)
    proc = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--lan", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert f"http://0.0.0.0:{port}/" in line
        import urllib.request

        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/session", timeout=5) as r:
                    assert json.load(r) == {"lan": True, "role": None}
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/roll", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# -- the OpenAPI document ---------------------------------------------------------------------------

def test_every_api_route_is_in_the_openapi_document(app, client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    missing = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            if method.lower() not in doc["paths"].get(path, {}):
                missing.append(f"{method} {path}")
    assert not missing, f"routes without OpenAPI docs (add them to web/openapi.py): {missing}"


def test_the_openapi_document_lists_every_nessie_action_and_the_errors(client):
    from companion.games.nessie_hunt.actions import ACTION_TYPES

    doc = client.get("/api/openapi.json").get_json()
    kinds = {a["properties"]["type"]["enum"][0] for a in doc["components"]["schemas"]["NessieAction"]["oneOf"]}
    assert kinds == set(ACTION_TYPES)
    post = doc["paths"]["/api/actions"]["post"]
    assert {"400", "401", "403", "409", "413", "415"} <= set(post["responses"])


def test_a_big_photo_with_the_table_pin_is_not_cut_short_by_the_checks(lan):
    """The security checks read no body but an action's: /api/photo keeps its own 24 MB limit."""
    import base64

    login(lan, TABLE_PIN)
    r = lan.post("/api/photo", json={"image": base64.b64encode(b"\0" * 2_000_000).decode(), "name": "big"})
    assert r.status_code in (400, 422) and r.get_json()["error"]
