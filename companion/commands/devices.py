"""``nessie-companion doctor [--json] [--probe]``: which input devices are here and what ails the rest.

Each check returns a :class:`Check` with a status:

* ``ok``     -- the device is there and usable;
* ``absent`` -- not there (nothing to fix unless you meant to use it); the reason says what is missing;
* ``error``  -- there but not usable; the reason says why.

Exit status: 0 when at least one device is ``ok`` and none is ``error``; 1 when any is ``error``;
3 when none is ``ok`` and none is ``error`` (no device at all: the game runs on the on-screen
buttons only). :func:`describe_sources` gives the dashboard the same view of running sources.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import asdict, dataclass, field

EXIT_OK, EXIT_ERROR, EXIT_NOTHING = 0, 1, 3


@dataclass
class Check:
    device: str  # "gpio", "serial", "camera"
    name: str  # what was looked at: a pin factory, a port, a video node
    status: str  # "ok", "absent" or "error"
    reason: str
    details: dict = field(default_factory=dict)


def check_gpio(factory: str = "lgpio", chips_glob: str = "/dev/gpiochip*") -> list[Check]:
    """Can gpiozero drive the header through ``factory``? (lgpio: every Pi, and the Pi 5's only way.)"""
    from companion.inputs.gpio_board import GPIOBoardError, make_pin_factory

    chips = sorted(glob.glob(chips_glob))
    try:
        pins = make_pin_factory(factory)
    except GPIOBoardError as exc:
        status = "error" if chips else "absent"
        reason = str(exc) if chips else f"no GPIO chip ({chips_glob}): not a Raspberry Pi? {exc}"
        return [Check("gpio", factory, status, reason, {"chips": chips})]
    try:
        details = {"chips": chips, "pin_factory": type(pins).__name__}
        try:
            details["board"] = str(pins.board_info.model)
        except Exception:  # MockFactory and friends may not know
            pass
    finally:
        pins.close()
    return [Check("gpio", factory, "ok", "pin factory opens", details)]


def check_serial(probe: bool = False, timeout_s: float = 1.0) -> list[Check]:
    """USB serial ports with the Pico's vendor id (0x2E8A); with ``probe``, each must answer the hello."""
    from companion.inputs.serial_board import PICO_VID, BoardLost, find_pico_ports
    from companion.inputs.serial_board import probe as probe_port

    ports = find_pico_ports()
    if not ports:
        return [Check("serial", "usb", "absent", f"no USB serial port with vendor id {PICO_VID:04X} (Pico): "
                      "is the board plugged in and flashed? (lsusb shows 2e8a:0005)")]
    checks = []
    for port in ports:
        details = {"vid_pid": f"{port.vid:04X}:{port.pid or 0:04X}", "serial_number": port.serial_number,
                   "description": port.description}
        if not probe:
            checks.append(Check("serial", port.device, "ok", "looks like a Pico (not probed)", details))
            continue
        try:
            hello = probe_port(port.device, timeout_s)
        except BoardLost as exc:
            checks.append(Check("serial", port.device, "error", f"a Pico, but: {exc}", details))
        else:
            checks.append(Check("serial", port.device, "ok", f"Nessie board, firmware {hello['firmware']}",
                                {**details, **hello}))
    return checks


def check_cameras(video_glob: str = "/dev/video*") -> list[Check]:
    """V4L2 video nodes that open, and whether Picamera2 (the Pi camera module's library) imports."""
    nodes = sorted(glob.glob(video_glob))
    checks = [] if nodes else [Check("camera", video_glob, "absent", "no video device")]
    for node in nodes:
        try:
            fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            checks.append(Check("camera", node, "error", f"cannot open: {exc.strerror or exc}"))
        else:
            os.close(fd)
            checks.append(Check("camera", node, "ok", "video node opens"))
    try:
        from picamera2 import Picamera2  # noqa: F401  (Debian: python3-picamera2)
    except ImportError as exc:
        checks.append(Check("camera", "picamera2", "absent", f"Picamera2 not importable ({exc})"))
    else:
        try:
            cameras = Picamera2.global_camera_info()
        except Exception as exc:
            checks.append(Check("camera", "picamera2", "error", f"Picamera2 fails: {exc}"))
        else:
            status = "ok" if cameras else "absent"
            checks.append(Check("camera", "picamera2", status, f"{len(cameras)} camera module(s)",
                                {"cameras": [str(c) for c in cameras]}))
    return checks


def run_checks(probe: bool = False, gpio_factory: str = "lgpio") -> list[Check]:
    return [*check_gpio(gpio_factory), *check_serial(probe), *check_cameras()]


def exit_status(checks: list[Check]) -> int:
    if any(c.status == "error" for c in checks):
        return EXIT_ERROR
    if any(c.status == "ok" for c in checks):
        return EXIT_OK
    return EXIT_NOTHING


def describe_sources(sources) -> list[dict]:
    """Running dice sources as the dashboard and doctor show them: name, kind, status, health, summary.

    ``status`` is ``ok`` (connected, no error so far), ``warning`` (connected, with a last error such
    as a garbled line or a refused throw), or ``disconnected``.
    """
    out = []
    for source in sources:
        health = source.health.as_dict()
        if not health["connected"]:
            status = "disconnected"
        elif health["last_error"]:
            status = "warning"
        else:
            status = "ok"
        summary = f"{source.name}: {status}"
        if health["last_event"]:
            summary += f"; last {health['last_event']}"
        if health["last_error"]:
            summary += f"; last error: {health['last_error']}"
        out.append({"name": source.name, "kind": source.kind, "status": status, "summary": summary, **health})
    return out


def cmd_doctor(args) -> int:
    checks = run_checks(probe=args.probe, gpio_factory=args.pin_factory)
    status = exit_status(checks)
    if args.json:
        print(json.dumps({"status": status, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        marks = {"ok": "ok    ", "absent": "absent", "error": "ERROR "}
        for c in checks:
            print(f"{marks[c.status]} {c.device:<7} {c.name}: {c.reason}")
        print({EXIT_OK: "Input devices ready.", EXIT_ERROR: "Some devices need attention (see ERROR).",
               EXIT_NOTHING: "No input device found: the on-screen buttons still work."}[status])
    return status


def cmd_press(args) -> int:
    """Press buttons of the simulated boards of a running companion (demo or serve)."""
    import sys
    import time

    from companion.config import Config, default_data_dir
    from companion.inputs.twin_control import press, socket_path

    database = args.database or (Config.from_file(args.config).database if args.config
                                 else str(default_data_dir() / "demo.sqlite"))
    path = socket_path(database)
    status = 0
    for i, button in enumerate(args.buttons):
        if i:
            time.sleep(args.gap)  # let the previous press be released and taken first
        try:
            reply = press(path, button, args.board or "")
        except OSError as exc:
            print(f"no companion with a simulated board at {path}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(reply)
        status = status or (2 if reply.startswith("error") else 0)
    return status


def register(subparsers) -> None:
    s = subparsers.add_parser(
        "doctor", help="list input devices (GPIO, Pico serial board, cameras) and what is wrong",
        description=__doc__.split("\n\n", 1)[1], formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--probe", action="store_true",
                   help="say hello to each Pico port (do not use while the companion runs)")
    s.add_argument("--pin-factory", default="lgpio", choices=("lgpio", "default", "mock"),
                   help="the gpiozero pin factory to try (default lgpio)")
    s.set_defaults(func=cmd_doctor)

    s = subparsers.add_parser(
        "press", help="press buttons on the simulated button boards of a running demo",
        description="Press buttons on the twins of the GPIO and Pico boards (gpio_pin_factory = \"simulated\", "
                    "serial_board = \"simulated\" or \"simulated-matrix\") of a companion running on this machine, "
                    "e.g. `nessie-companion press 4 next`. Buttons: 1-6, undo, next; the key-matrix twin also "
                    "7-12 and water.")
    s.add_argument("buttons", nargs="+", metavar="BUTTON")
    s.add_argument("--board", choices=("gpio", "serial"), help="which twin (default: the first that has the button)")
    s.add_argument("--database", help="the running companion's database (default: the demo's)")
    s.add_argument("--config", help="or the config file it was started with")
    s.add_argument("--gap", type=float, default=0.15, help="seconds between presses (default 0.15)")
    s.set_defaults(func=cmd_press)
