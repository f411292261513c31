"""``nessie-companion simulate`` (the strategy simulator) and ``nessie-companion replay`` (scripted games)."""

from __future__ import annotations

import json
import sys
import time


def cmd_simulate(args) -> int:
    from companion.box_profiles import load_box
    from companion.errors import CompanionError
    from companion.games.nessie_hunt import NessieHunt, VARIANTS
    from companion.sim.strategies import STRATEGIES
    from companion.sim.runner import simulate

    strategies = [s.strip() for s in args.strategy.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown or not strategies:
        raise CompanionError(f"unknown strategy {', '.join(unknown) or '(none)'}; choose from {', '.join(STRATEGIES)}")
    if args.variant not in VARIANTS:
        raise CompanionError(f"unknown variant {args.variant!r}; one of {', '.join(VARIANTS)}")
    if not 1 <= args.players <= 5:
        raise CompanionError("players must be 1 to 5")
    if args.games < 1:
        raise CompanionError("games must be at least 1")
    game = NessieHunt(load_box(args.box))
    started = time.perf_counter()
    result = simulate(game, args.players, args.variant, strategies, args.games, args.seed, args.target, args.rounds)
    result["seconds"] = round(time.perf_counter() - started, 2)
    result["settings"] = {"players": args.players, "variant": args.variant, "strategies": strategies,
                          "games": args.games, "seed": args.seed}
    if args.json:
        print(json.dumps(result))
    else:
        print(json.dumps(result, indent=2))
    return 0


def cmd_replay(args) -> int:
    """Apply a JSON list of actions (or a game export) and print the resulting view, or the first
    illegal action with its index and the reason (exit status 2)."""
    from companion.box_profiles import load_box
    from companion.errors import IllegalAction, MalformedAction
    from companion.games.nessie_hunt import NessieHunt, action_from_json

    try:
        with open(args.file, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as exc:
        print(f"nessie-companion replay: {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        print(f"nessie-companion replay: {args.file}: not valid JSON: {exc}", file=sys.stderr)
        return 2
    actions = doc.get("actions") if isinstance(doc, dict) else doc
    if not isinstance(actions, list):
        print(f"nessie-companion replay: {args.file}: expected a list of actions or a game export", file=sys.stderr)
        return 2
    game = NessieHunt(load_box(args.box))
    state = None
    for i, raw in enumerate(actions):
        try:
            state = game.apply(state, action_from_json(raw))
        except (MalformedAction, IllegalAction) as exc:
            error = {"index": i, "action": raw, "error": str(exc)}
            if args.json:
                print(json.dumps({"ok": False, **error}))
            else:
                print(f"action {i} {json.dumps(raw)}: {exc}", file=sys.stderr)
            return 2
    view = game.view(state)
    print(json.dumps({"ok": True, "view": view}) if args.json else game.prompt(state))
    return 0


def register(sub) -> None:
    s = sub.add_parser("simulate", help="play complete Nessie Hunt games between strategies")
    s.add_argument("--players", type=int, default=4)
    s.add_argument("--variant", default="basic")
    s.add_argument("--strategy", default="greedy,prudent,random", help="comma-separated, rotated round the seats")
    s.add_argument("--games", type=int, default=100)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--target", type=int, default=0, help="points to win (0: the variant's)")
    s.add_argument("--rounds", type=int, default=0, help="a shortened game's fixed number of rounds")
    s.add_argument("--box", help="a box profile file")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_simulate)

    s = sub.add_parser("replay", help="apply a JSON list of actions and print the table view")
    s.add_argument("file", help="a JSON list of actions, or a game export")
    s.add_argument("--box", help="a box profile file")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_replay)
