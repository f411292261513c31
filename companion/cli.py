"""The ``nessie-companion`` command line. Other tools rely on these; keep them stable.

    nessie-companion locate D3b --json
    nessie-companion board --json
    nessie-companion demo [--autoplay] [--port N]
    nessie-companion serve --config FILE

Exit status: 0 done, 2 bad input (a one-line reason on stderr), 1 anything else.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from companion import __version__
from companion.commands import COMMAND_MODULES
from companion.errors import CompanionError


def _box(path: str | None):
    from companion.box_profiles import load_box

    return load_box(path)


def cmd_locate(args) -> int:
    loch = _box(args.box).loch
    found = loch.locate(args.address)
    if args.json:
        print(json.dumps(found))
    else:
        sub = ", ".join(f"{d} {a or '(off the loch)'}" for d, a in found["submerged"].items())
        print(f"Head and neck on {found['surface']}; submerged monsters: {sub}")
    return 0


def cmd_board(args) -> int:
    box = _box(args.box)
    if args.json:
        print(json.dumps(box.to_json()))
    else:
        print(f"{box.name}: {len(box.loch)} loch hexes, {box.width:g} x {box.height:g} mm; tracks: "
              + ", ".join(f"{e} {len(t)} spaces" for e, t in box.tracks.items()))
    return 0


def _serve(config, start_game: bool = True) -> int:
    from companion.service import Service, run_server

    service = Service(config, start_game=start_game)
    run_server(service, config.host, config.port, config.threads)
    return 0


def cmd_demo(args) -> int:
    from companion.config import Config, default_data_dir
    from companion.inputs.demo_inputs import demo_input_config
    from companion.store import StoreError
    from companion.web.security import apply_lan

    inputs = demo_input_config(args.inputs)  # simulated boards; an unknown word is a ConfigError (exit 2)
    if args.serial_board:
        inputs["serial_board"] = args.serial_board
    config = Config(port=args.port, host=args.host, autoplay=args.autoplay, seed=args.seed,
                    database=args.database or str(default_data_dir() / "demo.sqlite"),
                    interval_s=args.interval, box=args.box or "", lan=args.lan,
                    input_game=args.input_game, **inputs,
                    camera_enabled=bool(args.camera), camera_source=args.camera or "auto",
                    board_camera_source=args.board_camera or "")
    apply_lan(config)  # --lan: PINs from the environment, host 0.0.0.0; refuses to start without PINs
    if args.fresh:
        for suffix in ("", "-wal", "-shm"):
            Path(config.database + suffix).unlink(missing_ok=True)
    try:
        return _serve(config)
    except StoreError as exc:
        if args.database:  # a file the user named is theirs: say why and leave it alone
            raise
        # The demo's own file no longer opens or replays: the demo must still start (it is the
        # newcomer's first command), and nothing is deleted.
        aside = _set_aside(config.database)
        print(f"nessie-companion demo: {exc}\n  kept that database as {aside}; starting a new demo game",
              file=sys.stderr, flush=True)
        return _serve(config)


def _set_aside(database: str) -> str:
    """Rename a database (and its WAL files) to a free ``NAME.unreadable-N``; returns the new name."""
    n = 1
    while any(Path(f"{database}.unreadable-{n}{s}").exists() for s in ("", "-wal", "-shm")):
        n += 1
    for suffix in ("", "-wal", "-shm"):
        if Path(database + suffix).exists():
            Path(database + suffix).rename(f"{database}.unreadable-{n}{suffix}")
    return f"{database}.unreadable-{n}"


def cmd_serve(args) -> int:
    from companion.config import Config
    from companion.web.security import apply_lan

    config = Config.from_file(args.config) if args.config else Config()
    if args.port is not None:
        config.port = args.port
    if args.host is not None:
        config.host = args.host
    config.lan = config.lan or args.lan
    apply_lan(config)  # --lan: PINs from the environment, host 0.0.0.0; refuses to start without PINs
    return _serve(config)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="nessie-companion", description="A table companion for Nessie Hunt.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("locate", help="where the monsters go for a surface hex")
    s.add_argument("address", help="a loch address such as D3b")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.set_defaults(func=cmd_locate)

    s = sub.add_parser("board", help="print the board: hexes, shore, markers, tracks")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.set_defaults(func=cmd_board)

    s = sub.add_parser("demo", help="the simulated table and its dashboard (no hardware needed)")
    s.add_argument("--autoplay", action="store_true", help="a self-playing table")
    s.add_argument("--port", type=int, default=5000)
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--seed", type=int, default=0, help="the virtual die's seed (-1: random)")
    s.add_argument("--interval", type=float, default=1.5, help="seconds between autoplayed moves")
    s.add_argument("--database", help="the SQLite file (default: demo.sqlite in the data folder)")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.add_argument("--fresh", action="store_true", help="forget the saved demo game and start anew")
    s.add_argument("--camera", metavar="SOURCE",
                   help='read the dice with a camera: "sim" (rendered throws), "auto", "picamera", a device number')
    s.add_argument("--board-camera", metavar="SOURCE",
                   help='the overhead board camera for the calibration preview: "sim", "auto", "picamera", a number')
    s.add_argument("--serial-board", metavar="PORT",
                   help='a Pico button board: "simulated" (its twin on a pseudo-terminal), "auto" or a device path')
    s.add_argument("--inputs", metavar="LIST", default="",
                   help="simulated button boards, comma-separated: gpio-sim, serial-sim, serial-matrix-sim")
    s.add_argument("--input-game", default="nessie-hunt", metavar="GAME",
                   help="the game the boards and the dice camera play (see `games`)")
    s.add_argument("--lan", action="store_true",
                   help="answer the LAN (0.0.0.0); changes need NESSIE_TABLE_PIN / NESSIE_ADMIN_PIN (docs/security.md)")
    s.set_defaults(func=cmd_demo)

    s = sub.add_parser("serve", help="run the companion from a config file")
    s.add_argument("--config", help="a TOML config file (see companion/config.py)")
    s.add_argument("--port", type=int)
    s.add_argument("--host")
    s.add_argument("--lan", action="store_true",
                   help="answer the LAN (0.0.0.0); changes need the PINs from the config or the environment")
    s.set_defaults(func=cmd_serve)

    for name in COMMAND_MODULES:  # commands that live beside their room
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CompanionError as exc:
        print(f"nessie-companion {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
