"""``nessie-companion play GAME --json-actions FILE``: a scripted-game runner for any game.

Replays a JSON list of actions (or a game export, whose ``actions`` are used) through the game's rules,
exactly as the table would, and prints the final view: prompt, summary and the players' lines, or
the whole view with ``--json``. The first action must be the game's setup (``new-game``).

    nessie-companion play loch-lomond --json-actions round.json --json
    nessie-companion play monster-ambush --json-actions - < actions.json

Exit status 2, with the action's number and the rule it breaks, when an action is malformed or illegal.
"""

from __future__ import annotations

import json
import sys

from companion.errors import CompanionError, IllegalAction, MalformedAction


class ScriptError(CompanionError):
    """A script that cannot be played: unreadable, not a list of actions, or an action refused."""


def find_game(gid: str, box: str | None = None):
    """The game with that id, on the box profile ``box`` (its house default when None)."""
    from companion.games import available_modules

    ids = []
    for module in available_modules():
        game = module.make_game()
        ids.append(game.id)
        if game.id == gid:
            return module.make_game(box) if box else game
    raise ScriptError(f"no game {gid!r}; games: {', '.join(ids)}")


def load_script(path: str) -> list:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as exc:
        raise ScriptError(f"{path}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    actions = doc.get("actions") if isinstance(doc, dict) else doc
    if not isinstance(actions, list) or not actions:
        raise ScriptError(f"{path}: expected a non-empty JSON list of actions (or a game export)")
    return actions


def play(game, actions: list) -> dict:
    """Fold the actions through the rules; the final view (as the table would publish it)."""
    state = None
    for i, raw in enumerate(actions, 1):
        try:
            action = game.parse_action(raw)
            if i == 1 and not game.is_setup(action):
                raise IllegalAction("the first action must be the game's setup (new-game)")
            if i > 1 and game.is_setup(action):
                state = None  # a new game, as at the table
            state = game.apply(state, action)
        except (MalformedAction, IllegalAction) as exc:
            raise ScriptError(f"action {i} ({json.dumps(raw)[:80]}): {exc}") from None
    view = game.view(state)
    view["actions"] = len(actions)
    return view


def cmd_play(args) -> int:
    game = find_game(args.game, args.box)
    view = play(game, load_script(args.json_actions))
    if args.json:
        print(json.dumps(view))
        return 0
    print(view.get("prompt", ""))
    for line in view.get("summary", []):
        print(f"  {line}")
    for p in view.get("players", []):
        print("  " + ", ".join(f"{k}: {v}" for k, v in p.items()))
    return 0


def register(sub) -> None:
    s = sub.add_parser("play", help="replay a scripted game of any game and print the final view")
    s.add_argument("game", help="the game's id (see `nessie-companion games`)")
    s.add_argument("--json-actions", required=True, metavar="FILE",
                   help="a JSON list of actions, or a game export ('-' reads standard input)")
    s.add_argument("--box", help="a box profile file for that game (default: its house default)")
    s.add_argument("--json", action="store_true", help="print the final view as JSON")
    s.set_defaults(func=cmd_play)
