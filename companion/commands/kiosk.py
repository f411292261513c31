"""``nessie-companion kiosk [--config FILE] [--port N] [--host H]``: the museum kiosk.

Solitaire Nessie Hunt on three arcade buttons with an attract loop (companion/kiosk.py), served
by its own narrow web app (web/kiosk.py) on its own database. docs/kiosk.md tells a museum how to
set it up; hardware/kiosk.md has the systemd units and the read-only root file system.
"""

from __future__ import annotations


def register(subparsers) -> None:
    s = subparsers.add_parser("kiosk", help="the museum kiosk: solitaire on arcade buttons, with an attract loop")
    s.add_argument("--config", help="a TOML config file: [server], [game], [kiosk], [voice], [inputs] (docs/kiosk.md)")
    s.add_argument("--port", type=int, help="the port (default: [server] port, 5000)")
    s.add_argument("--host", help="the address to listen on (default: [server] host, 127.0.0.1)")
    s.set_defaults(func=cmd_kiosk)


def build(kc, pin_factory=None, seed: int | None = None):
    """The running parts for a :class:`companion.kiosk_config.KioskConfig`: (service, controller, voice, board).

    ``pin_factory`` overrides ``[inputs] gpio_pin_factory`` (tests pass gpiozero's MockFactory).
    """
    from companion.inputs.gpio_board import GPIOBoard
    from companion.kiosk import KioskController
    from companion.service import Service
    from companion.voice import Voice

    service = Service(kc.config, start_game=False)
    voice = Voice.from_config(kc.voice)
    board = None
    try:
        controller = KioskController(service, kc.kiosk, voice=voice, seed=seed)
        inputs = dict(kc.inputs)
        if pin_factory is not None:
            inputs["gpio_pin_factory"] = pin_factory
        board = GPIOBoard.from_config(inputs)
        if board is not None:
            board.start(controller.handle_input)
            service.sources.append(board)  # shown in the service's health, closed with it
    except Exception:
        voice.close()
        service.close()
        raise
    return service, controller, voice, board


def cmd_kiosk(args) -> int:
    from companion.kiosk_config import load_kiosk_config
    from companion.serving import serve_until_stopped
    from companion.watchdog import Watchdog
    from companion.web.kiosk import create_kiosk_app, create_server

    kc = load_kiosk_config(args.config)
    host = args.host or kc.config.host
    port = kc.config.port if args.port is None else args.port
    service, controller, voice, _ = build(kc)
    watchdog = None

    def close() -> None:
        if watchdog is not None:
            watchdog.stop()
        controller.close()
        voice.close()
        service.close()

    try:
        app = create_kiosk_app(controller)
        server = create_server(app, host, port, threads=max(8, min(kc.config.threads, 16)), channel_timeout=120,
                               ident="nessie-kiosk")
        controller.start()
        watchdog = Watchdog.for_service(service).start()
        print(f"Nessie Hunt kiosk on http://{host}:{port}/  (database {kc.kiosk.database}; "
              f"{voice.health()['status']}; Ctrl+C stops)", flush=True)
    except BaseException:
        close()
        raise
    serve_until_stopped(server, close)  # Ctrl+C or SIGTERM: close() in order (companion/serving.py)
    return 0
