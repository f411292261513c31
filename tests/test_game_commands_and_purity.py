"""The four other games from the outside: the scripted-game runner (``nessie-companion play``), the games list,
and the purity of their rules modules (no I/O, clock or chance; box profiles are read by companion.box_profiles)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from companion.cli import main

PACKAGES = ("loch_ness_obert", "loch_ness_wettering", "loch_lomond", "monster_ambush")
FORBIDDEN = {"os", "io", "time", "datetime", "random", "secrets", "sqlite3", "socket", "threading", "pathlib",
             "subprocess", "shutil", "tempfile", "urllib", "http", "requests", "flask", "serial", "gpiozero", "cv2",
             "tomllib", "logging", "asyncio", "uuid", "json"}
ROOT = Path(__file__).resolve().parents[1] / "companion" / "games"


@pytest.mark.parametrize("package", PACKAGES)
def test_rules_modules_do_no_io(package):
    offenders = []
    for path in sorted((ROOT / package).glob("*.py")):
        if path.name == "__init__.py":  # make_game reads the box profile through companion.box_profiles
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN - {"json"}
                          or (n == "json" and path.name != "box.py")]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("open", "print", "input"):
                offenders.append(f"{path.name}: calls {node.func.id}()")
    assert offenders == []


def test_games_json_lists_all_five(capsys):
    assert main(["games", "--json"]) == 0
    games = {g["id"]: g for g in json.loads(capsys.readouterr().out)}
    assert games["loch-ness-obert"]["rulebook"] == "001_1b689ec8ac2a19dd.txt"
    assert games["loch-ness-wettering"]["rulebook"] == "002_6f32dea1b1d4604f.txt"
    assert games["loch-lomond"]["rulebook"] == "003_196e4e5c7f3f958b.txt"
    assert games["monster-ambush"]["rulebook"] == "004_27c800e34d0c540b.txt"


def test_play_replays_a_script_and_prints_the_view(tmp_path, capsys):
    script = tmp_path / "round.json"
    script.write_text(json.dumps([
        {"type": "new-game", "players": ["Ann", "Bob"]},
        {"type": "freedom", "player": "Ann"},
        {"type": "score-round", "clans": {"Ann": ["mercenary"], "Bob": ["witch"]}},
    ]))
    assert main(["play", "loch-lomond", "--json-actions", str(script), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["round"] == 2 and view["players"][0]["total"] == -2 - 3 and view["actions"] == 3
    assert main(["play", "loch-lomond", "--json-actions", str(script)]) == 0
    assert "Victory Token -3 won" in capsys.readouterr().out


def test_play_accepts_an_export(tmp_path, capsys):
    export = {"format": "nessie-companion-game/1", "game": "monster-ambush",
              "actions": [{"type": "new-game"}, {"type": "new-stack", "hex": "E1"}]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    assert main(["play", "monster-ambush", "--json-actions", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pool"] == 16


@pytest.mark.parametrize("content,args,match", [
    ('[{"type": "new-game"}, {"type": "grow", "hex": "E1"}]', ["monster-ambush"], "action 2 .*no monster stack"),
    ('[{"type": "grow", "hex": "E1"}]', ["monster-ambush"], "action 1 .*setup"),
    ('[{"type": "new-game", "actions_per_turn": "x"}]', ["monster-ambush"], "action 1 .*actions_per_turn"),
    ("{not json", ["monster-ambush"], "not valid JSON"),
    ("[]", ["monster-ambush"], "non-empty"),
    ('[{"type": "new-game"}]', ["no-such-game"], "no game 'no-such-game'"),
])
def test_play_refuses_bad_scripts_with_exit_2(tmp_path, capsys, content, args, match):
    path = tmp_path / "s.json"
    path.write_text(content)
    assert main(["play", *args, "--json-actions", str(path)]) == 2
    import re

    assert re.search(match, capsys.readouterr().err)


def test_play_with_another_box_profile(tmp_path, capsys):
    from importlib import resources

    text = resources.files("companion.games.monster_ambush").joinpath("default_box.toml").read_text()
    box = tmp_path / "map.toml"
    box.write_text(text.replace('ship = "E1"', 'ship = "A1"'))
    script = tmp_path / "s.json"
    script.write_text('[{"type": "new-game"}, {"type": "new-stack", "hex": "A1"}]')
    assert main(["play", "monster-ambush", "--box", str(box), "--json-actions", str(script), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stacks"] == [{"hex": "A1", "tokens": 2, "ambushed": False}]
    box.write_text(text.replace('ship = "E1"', 'ship = "Z9"'))
    assert main(["play", "monster-ambush", "--box", str(box), "--json-actions", str(script)]) == 2
    assert "map.ship" in capsys.readouterr().err


# -- the table: log, undo, resume and export for every game --------------------------------------

SETUPS = {
    "loch-ness-obert": {"type": "new-game", "players": ["red", "yellow"], "push": True},
    "loch-ness-wettering": {"type": "new-game", "players": ["blue", "red"], "display": ["head", "head", "tail"],
                            "storm": True},
    "loch-lomond": {"type": "new-game", "players": ["Ann", "Bob", "Cat"]},
    "monster-ambush": {"type": "new-game"},
}


def random_legal(entry, rng, view):
    data = {"type": entry["type"], **entry.get("fixed", {})}
    for f in entry.get("fields", []):
        kind = f["kind"]
        if kind == "choice":
            data[f["name"]] = rng.choice(f["choices"])
        elif kind == "dice":
            data[f["name"]] = [rng.choice(f["choices"]) for _ in range(f["count"])]
        elif kind == "bool":
            data[f["name"]] = rng.random() < 0.5
        elif kind == "number":
            data[f["name"]] = rng.randint(f["min"], min(f["max"], 8))
        elif kind == "per-player-number":
            data[f["name"]] = {k: rng.randint(0, 6) for k in f["keys"]}
        elif kind == "per-player-list":
            data[f["name"]] = {k: rng.sample(f["choices"][:-1], rng.randint(0, 4)) for k in f["keys"]}
    return data


@pytest.mark.parametrize("gid", sorted(SETUPS))
def test_the_table_logs_undoes_resumes_and_exports_every_game(gid, tmp_path):
    import random

    from companion.errors import IllegalAction
    from companion.games import available_modules
    from companion.store import EventStore
    from companion.table import Table

    game = next(m.make_game() for m in available_modules() if m.make_game().id == gid)
    store = EventStore(str(tmp_path / "log.sqlite"))
    table = Table(game, store)
    table.new_game(game.parse_action(SETUPS[gid]))
    rng = random.Random(7)
    views = [table.view()]
    for _ in range(60):
        legal = [a for a in table.view()["legal"] if a["type"] != "new-game"]
        if not legal:
            break
        try:
            views.append(table.submit(game.parse_action(random_legal(rng.choice(legal), rng, table.view()))))
        except IllegalAction:  # e.g. a card not in hand: refused, the view is unchanged
            assert table.view()["version"] == views[-1]["version"]
    assert len(views) > 5
    # a restart (the pulled plug) replays the log to the same view
    again = Table(game, store)
    assert {k: v for k, v in again.view().items() if k != "version"} == \
        {k: v for k, v in table.view().items() if k != "version"}
    # export and import give the same game
    imported = Table(game, EventStore(":memory:"))
    assert imported.import_game(table.export())["prompt"] == table.view()["prompt"]
    # undo steps back through the same views
    before = views[-2]
    after_undo = table.undo()
    assert after_undo["prompt"] == before["prompt"] and after_undo["actions"] == before["actions"]
    store.close()
