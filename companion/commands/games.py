"""``nessie-companion games [--json]``: every game the companion runs, with its rulebook."""

from __future__ import annotations

import json


def list_games() -> list[dict]:
    from companion.games import available_modules

    out = []
    for module in available_modules():
        game = module.make_game()
        out.append({"id": game.id, "name": game.name, "rulebook": game.rulebook})
    return out


def cmd_games(args) -> int:
    games = list_games()
    if args.json:
        print(json.dumps(games))
    else:
        for g in games:
            print(f"{g['id']:24} {g['name']}  (rulebook {g['rulebook']})")
    return 0


def register(sub) -> None:
    s = sub.add_parser("games", help="list every game the companion runs")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_games)
