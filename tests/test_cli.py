"""The command line, run as a user runs it (a subprocess of the installed package)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

CLI = [sys.executable, "-m", "companion"]


def run(*args, **kw):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60, **kw)


def test_locate_json_contract():
    r = run("locate", "D3b", "--json")
    assert r.returncode == 0
    assert json.loads(r.stdout) == {"surface": "D3b", "submerged": {"left": "C5b", "right": "E1b", "up": None, "down": "D3f"}}


@pytest.mark.parametrize("address", ["Z9z", "d3b", ""])
def test_locate_invalid_address_exits_2_with_one_line_on_stderr(address):
    r = run("locate", address, "--json")
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "not a loch address" in r.stderr


def test_board_json():
    r = run("board", "--json")
    doc = json.loads(r.stdout)
    assert len(doc["hexes"]) == 288
    assert {"address", "polygon_mm"} <= set(doc["hexes"][0])
    assert len(doc["shore_outline_mm"]) > 6
    assert [m["id"] for m in doc["markers"]["markers"]] == [0, 1, 2, 3]
    assert len(doc["tracks"]) == 4


def test_bad_box_profile_exits_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('schema = "nessie-hunt-box/1"\nname = "x"\n')
    r = run("board", "--json", "--box", str(bad))
    assert r.returncode == 2 and str(bad) in r.stderr and "board" in r.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_state(port, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=2) as r:
                return json.loads(r.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_demo_autoplays_and_a_pulled_plug_loses_nothing(tmp_path):
    """The embedded default plays by itself; killed without warning (SIGKILL) and started again, it
    resumes the same game at the same action."""
    env = {**os.environ, "NESSIE_COMPANION_DATA": str(tmp_path)}
    port = free_port()
    args = [*CLI, "demo", "--autoplay", "--interval", "0.05", "--port", str(port)]
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        first = get_state(port)
        deadline = time.monotonic() + 20
        while get_state(port)["actions"] < first["actions"] + 10:
            assert time.monotonic() < deadline, "the demo did not play by itself"
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    db = tmp_path / "demo.sqlite"
    assert db.exists()
    import sqlite3

    entries = sqlite3.connect(db).execute("SELECT COUNT(*) FROM log").fetchone()[0]
    port2 = free_port()
    proc2 = subprocess.Popen([*CLI, "demo", "--port", str(port2)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        resumed = get_state(port2)
        assert resumed["game_id"] == first["game_id"]
        assert resumed["version"] == entries  # every acknowledged action is back
        assert resumed["actions"] >= first["actions"] + 10
    finally:
        proc2.terminate()
        proc2.wait(timeout=10)


def test_a_demo_database_that_no_longer_replays_is_kept_aside_and_a_new_game_starts(tmp_path, box):
    """The demo is a newcomer's first command: a demo log that does not replay (written by two
    processes at once, or by an older release) must not stop it; the file is kept, not deleted."""
    from companion.games.nessie_hunt import Advance, NessieHunt
    from companion.store import EventStore
    from companion.table import Table
    from tests.nessie_helpers import SETUPS

    db = tmp_path / "demo.sqlite"
    store = EventStore(db)
    table = Table(NessieHunt(box), store)
    table.new_game(SETUPS[0])
    store.append(table.view()["game_id"], "action", NessieHunt(box).action_to_json(Advance()))  # illegal here
    store.close()
    env = {**os.environ, "NESSIE_COMPANION_DATA": str(tmp_path)}
    port = free_port()
    proc = subprocess.Popen([*CLI, "demo", "--port", str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        state = get_state(port)
        assert state["actions"] == 1  # a new game, just set up
    finally:
        proc.terminate()
        out = proc.communicate(timeout=10)[0]
    assert "no longer replays" in out and "demo.sqlite.unreadable-1" in out, out
    kept = EventStore(tmp_path / "demo.sqlite.unreadable-1")
    assert len(kept.entries(1)) == 2  # the old log, whole
    r = run("demo", "--port", str(free_port()), "--database", str(tmp_path / "demo.sqlite.unreadable-1"), env=env)
    assert r.returncode == 2 and "no longer replays" in r.stderr  # a file the user names is not moved
    assert (tmp_path / "demo.sqlite.unreadable-1").exists()


def test_games_json_lists_nessie_hunt_first():
    games = json.loads(run("games", "--json").stdout)
    assert games[0] == {"id": "nessie-hunt", "name": "Nessie Hunt", "rulebook": "000_5221d2090e374035.txt"}
    assert len({g["id"] for g in games}) == len(games)


def test_simulate_reports_rounds_and_win_rates():
    r = run("simulate", "--players", "3", "--strategy", "greedy,prudent,random", "--games", "6", "--seed", "5", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["games"] == 6 and set(out["win_rate_by_strategy"]) == {"greedy", "prudent", "random"}
    assert out["rounds_to_win"]["median"] is None or out["rounds_to_win"]["median"] >= 1
    again = json.loads(run("simulate", "--players", "3", "--games", "6", "--seed", "5", "--json").stdout)
    assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in out.items() if k != "seconds"}


def test_simulate_refuses_unknown_strategies():
    r = run("simulate", "--strategy", "cheat", "--games", "1")
    assert r.returncode == 2 and "unknown strategy cheat" in r.stderr


def test_replay_prints_the_view_or_the_first_illegal_action(tmp_path):
    good = [{"type": "new-game", "players": 1, "expeditions": ["british"]}, {"type": "throw", "value": 3}]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(good))
    r = run("replay", str(path), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["view"]["last_throw"]["value"] == 3
    path.write_text(json.dumps(good + [{"type": "advance"}]))
    r = run("replay", str(path), "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 2 and out["index"] == 2 and "not yet" in out["error"]
    path.write_text("{broken")
    r = run("replay", str(path))
    assert r.returncode == 2 and "not valid JSON" in r.stderr


def test_serve_tells_systemd_it_is_ready_and_alive(tmp_path):
    """Type=notify with a watchdog (hardware/systemd/nessie-companion.service): READY=1, then WATCHDOG=1;
    SIGTERM stops it cleanly, with STOPPING=1 and exit status 0."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = str(tmp_path / "notify.sock")
    notify.bind(address)
    notify.settimeout(30)
    config = tmp_path / "companion.toml"
    port = free_port()
    config.write_text(f'[server]\nport = {port}\n[game]\ndatabase = "{tmp_path / "g.sqlite"}"\n')
    env = {**os.environ, "NOTIFY_SOCKET": address, "WATCHDOG_USEC": "2000000"}
    proc = subprocess.Popen([*CLI, "serve", "--config", str(config)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        messages = set()
        while not {"READY=1", "WATCHDOG=1"} <= messages:
            for line in notify.recv(4096).decode().splitlines():
                messages.add(line)
        assert get_state(port)["started"]
        proc.terminate()  # SIGTERM, as `systemctl stop` sends: a clean stop, not Python's default death
        out, _ = proc.communicate(timeout=30)
        notify.settimeout(1)
        while "STOPPING=1" not in messages:
            messages.update(notify.recv(4096).decode().splitlines())
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        notify.close()
    assert proc.returncode == 0, out
