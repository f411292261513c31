"""Kiosk mode: only kiosk URLs exist, the two-tier timeout on a clock we hand it, the game played
on three buttons, the attract loop, and the real GPIO board class on gpiozero's MockFactory."""

from __future__ import annotations

import argparse

import pytest
from gpiozero.pins.mock import MockFactory

from companion.config import ConfigError
from companion.games.nessie_hunt import Step
from companion.kiosk import IdleTimer, KioskController
from companion.kiosk_config import KioskSettings, load_kiosk_config
from tests.device_helpers import tap, wait_for


class Clock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def kiosk(make_service, clock, tmp_path):
    """A kiosk on its own temporary database; automatic steps at once, timeouts 30 s + 10 s."""
    service = make_service(start_game=False, players=1, expeditions=["american"])
    settings = KioskSettings(database=service.store.path, still_playing_s=30, reset_s=10, auto_step_s=0,
                             attract_step_s=0, game_over_s=20)
    controller = KioskController(service, settings, clock=clock, seed=5)
    yield controller
    controller.close()


@pytest.fixture
def kiosk_client(kiosk):
    from companion.web.kiosk import create_kiosk_app

    return create_kiosk_app(kiosk, {"TESTING": True, "SSE_KEEPALIVE_S": 0.2}).test_client()


def settle(controller, clock, step=0.05, limit=400):
    """Let the kiosk play its automatic steps until the visitor must press (or the game is over)."""
    for _ in range(limit):
        s = controller.table.state
        if controller.mode != "playing" or s.step is Step.OVER or controller._visitor_decides(s):
            return
        clock.now += step
        controller.tick()
    raise AssertionError("the kiosk never came back to the visitor")


# -- routes: nothing but the kiosk -----------------------------------------------------------------

def test_the_kiosk_pages_answer(kiosk_client):
    page = kiosk_client.get("/")
    assert page.status_code == 200 and b"Still playing?" in page.data and b"/kiosk/static/kiosk.js" in page.data
    state = kiosk_client.get("/kiosk/state").get_json()
    assert state["mode"] == "attract" and state["demo"] is True and state["buttons"]["go"] == "Play"
    board = kiosk_client.get("/kiosk/board").get_json()
    assert board["hexes"] and board["tracks"] and "logistics" not in board
    for name, kind in (("kiosk.js", "javascript"), ("kiosk.css", "css"), ("favicon.svg", "svg")):
        r = kiosk_client.get(f"/kiosk/static/{name}")
        assert r.status_code == 200 and kind in r.content_type


@pytest.mark.parametrize("method, url", [
    ("GET", "/api/state"), ("GET", "/api/health"), ("GET", "/api/highscores"), ("GET", "/api/export"),
    ("GET", "/api/board"), ("GET", "/api/events"), ("GET", "/api/games"), ("GET", "/api/games/nessie-hunt/state"),
    ("POST", "/api/actions"), ("POST", "/api/undo"), ("POST", "/api/roll"), ("POST", "/api/import"),
    ("POST", "/api/games/nessie-hunt/actions"), ("POST", "/api/setup"), ("POST", "/api/admin"),
    ("GET", "/setup"), ("GET", "/admin"), ("GET", "/devices"), ("GET", "/calibrate"), ("GET", "/tally"),
    ("GET", "/games"), ("GET", "/games/nessie-hunt"), ("GET", "/join"), ("GET", "/phone"),
    ("GET", "/static/table.js"), ("GET", "/static/kiosk.js"), ("GET", "/kiosk/static/table.js"),
    ("GET", "/kiosk/static/../templates/kiosk.html"), ("GET", "/kiosk/static/%2e%2e%2fkiosk.py"),
    ("GET", "/kiosk"), ("GET", "/kiosk/admin"), ("POST", "/kiosk/setup"), ("GET", "/openapi.json"),
])
def test_every_other_url_is_a_404(kiosk_client, method, url):
    r = kiosk_client.open(url, method=method, json={"type": "new-game", "players": 4})
    assert r.status_code == 404, url
    assert b"/api" not in r.data and b"href" not in r.data  # the error names no other page


def test_the_app_registers_only_kiosk_routes(kiosk):
    from companion.web.kiosk import create_kiosk_app

    app = create_kiosk_app(kiosk)
    rules = sorted((r.rule, tuple(sorted(r.methods - {"HEAD", "OPTIONS"}))) for r in app.url_map.iter_rules())
    assert rules == [("/", ("GET",)), ("/kiosk/board", ("GET",)), ("/kiosk/events", ("GET",)),
                     ("/kiosk/press", ("POST",)), ("/kiosk/state", ("GET",)), ("/kiosk/static/<name>", ("GET",))]
    assert set(app.blueprints) == {"kiosk"}


def test_press_takes_only_the_three_buttons_and_a_bad_one_changes_nothing(kiosk_client, kiosk):
    before = kiosk.screen()
    for body in ({"button": "admin"}, {"button": None}, [], {"type": "new-game"}):
        r = kiosk_client.post("/kiosk/press", json=body)
        assert r.status_code == 400 and "go" in r.get_json()["error"]
    assert kiosk_client.post("/kiosk/press", data="go").status_code == 400
    assert kiosk.screen()["version"] == before["version"] and kiosk.mode == "attract"
    assert kiosk_client.get("/kiosk/press").status_code == 405
    r = kiosk_client.post("/kiosk/press", json={"button": "go"})
    assert r.status_code == 200 and r.get_json()["mode"] == "playing"


def test_the_event_stream_sends_the_screen(kiosk_client):
    r = kiosk_client.get("/kiosk/events", buffered=False)
    chunks = r.response
    assert next(chunks).startswith(b"retry:")
    first = next(chunks).decode()
    assert first.startswith("event: screen") and '"mode":"attract"' in first
    r.close()


# -- the two-tier timeout, pure ----------------------------------------------------------------------

@pytest.mark.parametrize("elapsed, state, left", [
    (0, "active", 40), (29.99, "active", 10.01), (30, "asking", 10), (35, "asking", 5), (39.99, "asking", 0.01),
    (40, "expired", 0), (1000, "expired", 0),
])
def test_idle_timer_two_tiers(elapsed, state, left):
    t = IdleTimer(30, 10, now=500)
    assert t.poll(500 + elapsed) == state
    assert t.seconds_left(500 + elapsed) == pytest.approx(left)


def test_idle_timer_a_press_starts_it_again_and_time_never_runs_backwards():
    t = IdleTimer(30, 10, now=0)
    assert t.poll(35) == "asking"
    t.touch(35)
    assert t.poll(36) == "active" and t.poll(64.9) == "active" and t.poll(65) == "asking"
    t.touch(10)  # a late report from another thread does not wind the clock back
    assert t.last_press == 35
    with pytest.raises(ValueError):
        IdleTimer(0, 10, now=0)


# -- the controller on a clock we hand it ----------------------------------------------------------

def test_attract_loop_plays_a_demo_that_never_reaches_the_high_scores(kiosk, clock):
    first = kiosk.screen()
    assert first["mode"] == "attract" and first["view"]["started"]
    for _ in range(200):
        clock.now += 0.1
        kiosk.tick()
    later = kiosk.screen()
    assert later["version"] > first["version"] + 150  # one demo move per tick
    assert later["mode"] == "attract" and later["demo"]
    assert kiosk.service.store.highscores("nessie-hunt") == []  # demo games finished, none recorded
    assert kiosk.table.state is None  # the visitor's table was not touched


def test_a_press_starts_a_solitaire_game_and_go_throws_the_kiosk_die(kiosk, clock):
    screen = kiosk.press("go")
    assert screen["mode"] == "playing" and not screen["demo"]
    s = kiosk.table.state
    assert s.seating.players == 1 and s.seating.expeditions == ("american",) and s.seating.rounds == 6
    assert s.step is Step.THROW and screen["buttons"] == {"go": "Throw", "next": None, "undo": None}
    kiosk.press("next")  # NEXT does not throw
    assert kiosk.table.state.step is Step.THROW and "GO" in kiosk.screen()["message"]
    kiosk.press("go")
    throw = kiosk.table.view()["last_throw"]
    assert throw["source"] == "virtual-die" and 1 <= throw["value"] <= 6


def test_still_playing_then_reset_to_attract(kiosk, clock):
    kiosk.press("go")
    clock.now += 29.9
    kiosk.tick()
    assert kiosk.mode == "playing"
    clock.now += 0.1
    kiosk.tick()
    screen = kiosk.screen()
    assert screen["mode"] == "asking" and screen["seconds_left"] == pytest.approx(10)
    assert screen["headline"] == "Still playing? Press any button."
    version = kiosk.table.version
    kiosk.press("undo")  # any button answers; the answering press does nothing else
    assert kiosk.mode == "playing" and kiosk.table.version == version
    clock.now += 30
    kiosk.tick()
    assert kiosk.mode == "asking"
    clock.now += 9.9
    kiosk.tick()
    assert kiosk.mode == "asking" and kiosk.screen()["seconds_left"] == pytest.approx(0.1)
    clock.now += 0.1
    kiosk.tick()
    assert kiosk.mode == "attract" and kiosk.screen()["demo"]
    kiosk.press("next")  # from the attract loop any button starts a fresh game
    assert kiosk.mode == "playing" and kiosk.table.view()["actions"] == 1


def test_a_whole_game_on_the_big_button_records_the_high_score(kiosk, clock):
    kiosk.press("go")
    presses = 0
    while kiosk.mode == "playing" and presses < 200:
        settle(kiosk, clock)
        if kiosk.mode != "playing":
            break
        screen = kiosk.screen()
        assert screen["buttons"]["go"] in ("Throw", "Choose")
        if screen["choices"]:
            assert 1 <= len(screen["choices"]) <= 3 and screen["selected"] == 0
            assert screen["choices"][-1] in ("Save your money", "Carry on (nothing to buy)")
        kiosk.press("go")
        presses += 1
    assert kiosk.mode == "over", presses
    view = kiosk.table.view()
    assert view["outcome"]["winner"] == "american" and view["round"] == 6
    scores = kiosk.service.store.highscores("nessie-hunt")
    assert [(h["rounds"], h["points"]) for h in scores] == [(6, view["outcome"]["points"]["american"])]
    assert kiosk.screen()["highscores"] == scores
    assert kiosk.screen()["headline"].startswith("The hunt is over:")
    clock.now += 19.9
    kiosk.tick()
    assert kiosk.mode == "over"
    clock.now += 0.2
    kiosk.tick()
    assert kiosk.mode == "attract" and kiosk.screen()["highscores"] == scores


def _to_purchase(kiosk, clock):
    kiosk.press("go")
    for _ in range(60):
        settle(kiosk, clock)
        if kiosk.table.state.step is Step.PURCHASE:
            return kiosk.screen()
        kiosk.press("go")
    raise AssertionError("no purchase step")


def test_purchases_next_moves_the_highlight_go_confirms_undo_takes_back(kiosk, clock):
    screen = _to_purchase(kiosk, clock)
    choices = screen["choices"]
    assert choices[0].startswith("Buy ") and choices[-1] == "Save your money"
    assert screen["buttons"]["go"] == "Choose" and screen["buttons"]["next"] == "Next choice"
    kiosk.press("next")
    assert kiosk.screen()["selected"] == 1
    for _ in range(len(choices) - 1):
        kiosk.press("next")
    assert kiosk.screen()["selected"] == 0  # round and round
    cash = kiosk.table.state.expedition("american").cash
    pieces = len(kiosk.table.state.expedition("american").pieces)
    at_decision = kiosk.table.view()["actions"]
    kiosk.press("go")  # buy the kiosk strategy's pick
    assert len(kiosk.table.state.expedition("american").pieces) == pieces + 1
    assert kiosk.screen()["buttons"]["undo"] == "Take back" and "You bought" in kiosk.screen()["message"]
    settle(kiosk, clock)
    assert kiosk.table.state.step is Step.THROW  # the kiosk played on to the next throw
    kiosk.press("undo")
    s = kiosk.table.state
    assert s.step is Step.PURCHASE and kiosk.table.view()["actions"] == at_decision
    assert s.expedition("american").cash == cash and len(s.expedition("american").pieces) == pieces
    for _ in range(len(kiosk.screen()["choices"]) - 1):
        kiosk.press("next")
    assert kiosk.screen()["choices"][kiosk.screen()["selected"]] == "Save your money"
    kiosk.press("go")
    settle(kiosk, clock)
    assert len(kiosk.table.state.expedition("american").pieces) == pieces
    kiosk.press("go")  # a throw: the purchase can no longer be taken back
    assert kiosk.screen()["buttons"]["undo"] is None
    version = kiosk.table.version
    kiosk.press("undo")
    assert kiosk.table.version == version and "until your next throw" in kiosk.screen()["message"]


def test_a_real_die_value_counts_only_in_real_die_mode(make_service, clock):
    from companion.inputs.base import InputEvent

    for die, expect in (("real", 5), ("virtual", None)):
        service = make_service(start_game=False, players=1)
        settings = KioskSettings(database=service.store.path, die=die, auto_step_s=0, attract_step_s=0)
        k = KioskController(service, settings, clock=clock, seed=1)
        k.handle_input(InputEvent("throw", 5, "camera"))  # starts the game
        k.handle_input(InputEvent("throw", 5, "camera"))
        throw = k.table.view()["last_throw"]
        if expect:
            assert throw["value"] == 5 and throw["source"] == "camera"
        else:
            assert throw["source"] == "virtual-die"
        k.close()


def test_a_d12_value_on_the_d6_kiosk_is_a_plain_go(make_service, clock):
    """A pin map with a d12 key can send 9 or water: the kiosk's d6 game rolls its own die."""
    from companion.inputs.base import InputEvent

    for value in (9, "water"):
        service = make_service(start_game=False, players=1)
        settings = KioskSettings(database=service.store.path, die="real", auto_step_s=0, attract_step_s=0)
        k = KioskController(service, settings, clock=clock, seed=1)
        k.handle_input(InputEvent("throw", 5, "board"))  # starts the game
        version = k.table.version
        k.handle_input(InputEvent("throw", value, "board"))
        throw = k.table.view()["last_throw"]
        assert k.table.version > version
        assert 1 <= throw["value"] <= 6 and throw["source"] == "virtual-die"
        k.close()


def test_automatic_steps_wait_auto_step_s_and_go_hurries_them(make_service, clock):
    service = make_service(start_game=False, players=1)
    k = KioskController(service, KioskSettings(database=service.store.path, auto_step_s=2, attract_step_s=0),
                        clock=clock, seed=3)
    k.press("go")
    for _ in range(3):
        k.press("go")  # three throws, one per token: then the kiosk plays (the monster, cards ...)
    assert not k._visitor_decides(k.table.state)
    version = k.table.version
    clock.now += 1.9
    k.tick()
    assert k.table.version == version
    clock.now += 0.1
    k.tick()
    assert k.table.version == version + 1
    if not k._visitor_decides(k.table.state):
        k.press("go")  # GO hurries the next automatic step
        assert k.table.version == version + 2
    k.close()


# -- config ----------------------------------------------------------------------------------------

def test_kiosk_config_file(tmp_path):
    path = tmp_path / "kiosk.toml"
    path.write_text('[server]\nport = 5099\n[game]\ndatabase = "table.sqlite"\n'
                    '[kiosk]\ndatabase = "data/kiosk.sqlite"\nstill_playing_s = 20\nreset_s = 5\n'
                    'expedition = "british"\n'
                    '[voice]\nenabled = true\n[inputs]\ngpio_board = true\n')
    kc = load_kiosk_config(path)
    assert kc.config.port == 5099 and kc.config.database == str(tmp_path / "data" / "kiosk.sqlite")
    assert kc.config.players == 1 and kc.config.expeditions == ["british"] and kc.config.autoplay is False
    assert kc.kiosk.still_playing_s == 20.0 and kc.kiosk.reset_s == 5.0
    assert kc.voice == {"enabled": True} and kc.inputs == {"gpio_board": True}
    assert load_kiosk_config(None).kiosk.database.endswith("kiosk.sqlite")


@pytest.mark.parametrize("text, needle", [
    ("[kiosk]\nreset_s = 0\n", "reset_s"), ("[kiosk]\nexpedition = \"independent\"\n", "expedition"),
    ("[kiosk]\nadmin = true\n", "no key 'admin'"), ("[kiosk]\nstill_playing_s = \"soon\"\n", "must be float"),
    ("[setup]\nx = 1\n", "unknown section"), ("[kiosk]\ndie = \"loaded\"\n", "die"), ("[kiosk\n", "not valid TOML"),
])
def test_bad_kiosk_config_is_refused_with_the_reason(tmp_path, text, needle):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=needle):
        load_kiosk_config(path)


def test_the_kiosk_command_registers():
    from companion.commands import kiosk as command

    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["kiosk", "--port", "5123", "--config", "k.toml"])
    assert args.port == 5123 and args.config == "k.toml" and args.func is command.cmd_kiosk


# -- arcade buttons: the real GPIO board class on gpiozero's MockFactory -------------------------


def test_arcade_buttons_on_the_gpio_board_drive_the_kiosk(tmp_path):
    from companion.commands.kiosk import build
    from companion.inputs.gpio_board import GPIOBoard

    path = tmp_path / "kiosk.toml"
    # The big GO button on the "1" input (BCM 5), NEXT and UNDO on their own pins; no LEDs.
    path.write_text('[kiosk]\ndatabase = "kiosk.sqlite"\nauto_step_s = 0\nattract_step_s = 0.05\n'
                    '[inputs]\ngpio_board = true\n'
                    'gpio_buttons = { "1" = 5, "next" = 21, "undo" = 20 }\ngpio_leds = {}\n')
    factory = MockFactory()
    service, kiosk, voice, board = build(load_kiosk_config(path), pin_factory=factory, seed=2)
    try:
        assert isinstance(board, GPIOBoard) and board in service.sources
        assert service.health()["gpio board"]["connected"] is True
        go, nxt, undo = factory.pin(5), factory.pin(21), factory.pin(20)
        tap(go)
        assert wait_for(lambda: kiosk.mode == "playing")
        assert kiosk.table.state.step is Step.THROW and kiosk.table.view()["actions"] == 1
        tap(go)
        assert wait_for(lambda: kiosk.table.view()["last_throw"] is not None)
        assert kiosk.table.view()["last_throw"]["source"] == "virtual-die"
        version = kiosk.table.version
        tap(nxt)  # NEXT during a throw: a hint, no move
        assert wait_for(lambda: "GO" in kiosk.screen()["message"])
        tap(undo)  # UNDO with no purchase to take back: a hint, no move
        assert wait_for(lambda: "UNDO" in kiosk.screen()["message"])
        assert kiosk.table.version == version
        assert service.health()["gpio board"]["last_event"] == "undo"
    finally:
        kiosk.close()
        voice.close()
        service.close()
    assert board.health.connected is False  # closed with the service


# -- the command as systemd runs it ----------------------------------------------------------------

RUN_KIOSK = """
import sys
import companion.commands as commands
if "companion.commands.kiosk" not in commands.COMMAND_MODULES:
    commands.COMMAND_MODULES += ("companion.commands.kiosk",)
from companion import cli
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])  # Ctrl+C, and what `systemctl stop` sends
def test_the_kiosk_command_serves_only_the_kiosk_and_tells_systemd(tmp_path, stop):
    import json
    import signal
    import socket
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(20)
    (tmp_path / "kiosk.toml").write_text('[kiosk]\ndatabase = "k.sqlite"\n[voice]\nenabled = false\n')
    env = {**__import__("os").environ, "NOTIFY_SOCKET": str(tmp_path / "notify.sock"), "WATCHDOG_USEC": "400000"}
    proc = subprocess.Popen([sys.executable, "-c", RUN_KIOSK, "kiosk", "--config", str(tmp_path / "kiosk.toml"),
                             "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert notify.recv(100) == b"READY=1"  # once listening
        state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/kiosk/state", timeout=5))
        assert state["mode"] == "attract"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5)
        assert refused.value.code == 404
        assert notify.recv(100) == b"WATCHDOG=1"  # every 0.2 s while the table answers
        proc.send_signal(getattr(signal, stop))
        # Generous for a loaded CI machine; a stop past 30 s also prints every thread's stack to err.
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        notify.settimeout(1)
        rest = []
        try:
            while True:
                rest.append(notify.recv(100))
        except socket.timeout:
            pass
        notify.close()
    assert proc.returncode == 0, err
    assert f"Nessie Hunt kiosk on http://127.0.0.1:{port}/" in out and "voice: off" in out
    assert rest[-1] == b"STOPPING=1"
    assert (tmp_path / "k.sqlite").exists()  # its own database, beside the config file


def test_a_sponsor_loan_is_repaid_for_the_visitor_before_the_purchase_choice(make_service, clock):
    """Greedy buying runs costs past income: the Sponsor lends, and the kiosk repays as the strategy would."""
    from companion.games.nessie_hunt import RepayLoan

    service = make_service(start_game=False, players=1, seed=8)
    k = KioskController(service, KioskSettings(database=service.store.path, auto_step_s=0, attract_step_s=0,
                                               strategy="greedy", rounds=12), clock=clock, seed=8)
    k.press("go")
    for _ in range(300):
        settle(k, clock)
        if k.mode != "playing":
            break
        k.press("go")
    assert k.mode == "over"
    actions = k.table._actions
    repaid = [i for i, a in enumerate(actions) if isinstance(a, RepayLoan)]
    assert repaid, "this seed borrows from the Sponsor"
    assert all(type(actions[i + 1]).__name__ in ("Buy", "EndTurn") for i in repaid)  # then the visitor chose
