"""A virtual Pico button board on a pseudo-terminal: the serial board's twin for tests and the demo.

It runs the firmware's own logic (``firmware/board_logic.py``, under CPython with fake pins) and
speaks through a real pty, so :class:`SerialBoard` talks to it exactly as to a Pico on
``/dev/ttyACM0``. The port is a symlink that stays put across :meth:`unplug`/:meth:`plug`, the way
udev's ``/dev/nessie-board`` does. Faults can be injected: garbage bytes, dropped or doubled
event frames, a silent board, an unplug with or without losing power.

    twin = VirtualSerialBoard()
    twin.plug()
    source = SerialBoard(twin.port)
    twin.press("4")                     # a throw of 4 reaches source's callback
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import select
import tempfile
import threading
import time
import tty
from pathlib import Path

from .serial_board import SerialBoard

FIRMWARE_DIR = Path(os.environ.get("NESSIE_FIRMWARE_DIR", Path(__file__).resolve().parents[2] / "firmware"))
BUTTONS = ("1", "2", "3", "4", "5", "6", "undo", "next")
EXPEDITIONS = ("independent", "japanese", "british", "american")


def load_firmware(directory: Path = FIRMWARE_DIR, name: str = "board_logic"):
    """Import one of the firmware's modules (``board_logic``, ``key_matrix``) as a CPython module."""
    path = Path(directory) / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no firmware at {path} (set NESSIE_FIRMWARE_DIR)")
    spec = importlib.util.spec_from_file_location(f"nessie_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _now_ms() -> int:
    return int(time.monotonic() * 1000)


class VirtualSerialBoard:
    """The firmware with fake pins, on the far end of a pty whose slave is reached at :attr:`port`.

    ``layout``: ``"buttons"`` (one pin per button in ``buttons``) or ``"matrix"`` (the firmware's
    4x4 key matrix, scanned through simulated wiring: 1-12, water, undo, next; ``diodes=False``
    wires it like a diode-less membrane keypad, where phantom keys appear).
    """

    def __init__(self, port: str | None = None, buttons=BUTTONS, tick_s: float = 0.001,
                 layout: str = "buttons", diodes: bool = True):
        self.logic = load_firmware()
        if layout not in ("buttons", "matrix"):
            raise ValueError(f"layout must be 'buttons' or 'matrix', got {layout!r}")
        self.layout = layout
        self._dir = None
        if port is None:
            self._dir = tempfile.TemporaryDirectory(prefix="nessie-board-")
            port = os.path.join(self._dir.name, "ttyNESSIE")
        self.port = port
        self.tick_s = tick_s
        self.matrix = None
        if layout == "matrix":
            self._km = km = load_firmware(name="key_matrix")
            keymap = km.KEYPAD_4X4
            self.wiring = km.FakeMatrix(len(keymap), len(keymap[0]), diodes=diodes)
            self.pins = {name: self.wiring.switch(r, c) for r, line in enumerate(keymap)
                         for c, name in enumerate(line) if name is not None}
            self._keymap = keymap
        else:
            self.pins = {name: self.logic.FakePin(1) for name in buttons}
        self.led_pins = {name: self.logic.FakePin(0) for name in EXPEDITIONS}
        self.board = None
        self._fds: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._releases: dict[str, float] = {}
        self._out: list[str] = []
        self.drop_events = 0  # the next N event frames (numbered: BTN, UNDO, ...) to the host are lost
        self.duplicate_events = 0  # the next N event frames to the host are sent twice
        self.silent = False  # the board hangs: it reads but sends nothing
        self.deaf = False  # what the host sends is lost (its acknowledgements too)
        self.sent: list[str] = []  # every frame that went out, for tests

    # -- the cable -----------------------------------------------------------------------------
    def plug(self, power_cycle: bool = False) -> None:
        """Connect (a new pty at the same :attr:`port` path); ``power_cycle``: the board reboots."""
        if self._fds is not None:
            return
        if self.board is None or power_cycle:
            buttons, scan = list(self.pins.items()), None
            if self.layout == "matrix":  # the board reads the scanned keys, not the switches
                self.matrix = self._km.KeyMatrix(self.wiring.rows, self.wiring.cols, self._keymap)
                buttons, scan = self.matrix.keys, self.matrix.scan
            self.board = self.logic.Board(buttons, list(self.led_pins.items()),
                                          self._out.append, secrets.token_hex(2), _now_ms(), scan=scan)
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing, as on a USB serial port
        os.set_blocking(master, False)
        self._fds = (master, slave)
        tmp = self.port + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="virtual serial board", daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        """Pull the cable: the pty goes away (reads on the host fail) and so does the port path."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._thread = None
        if self._fds is not None:
            for fd in self._fds:
                os.close(fd)
            self._fds = None
        if os.path.lexists(self.port):
            os.unlink(self.port)

    def close(self) -> None:
        self.unplug()
        if self._dir is not None:
            self._dir.cleanup()

    # -- the player and the faults -------------------------------------------------------------
    def press(self, name: str, hold_s: float = 0.04) -> None:
        """Press a button (1-6, undo, next; with the matrix also 7-12 and water) and let go after
        ``hold_s``; returns at once."""
        if name not in self.pins:
            raise ValueError(f"this board has no button {name!r}; it has {', '.join(self.pins)}")
        with self._lock:
            self.pins[name].press()
            self._releases[name] = time.monotonic() + hold_s

    def inject(self, raw: bytes) -> None:
        """Bytes straight onto the line, as electrical noise would."""
        with self._lock:
            self._out.append(raw.decode("latin-1"))

    def receive(self, data: bytes) -> None:
        """Hand the firmware bytes as if the host had sent them (to test what it does with garbage)."""
        with self._lock:
            self.board.feed(data, _now_ms())

    @property
    def led(self) -> str | None:
        lit = [name for name, pin in self.led_pins.items() if pin.value()]
        return lit[0] if len(lit) == 1 else (None if not lit else ",".join(lit))

    # -- the loop ------------------------------------------------------------------------------
    def _run(self) -> None:
        master = self._fds[0]
        while not self._stop.is_set():
            ready, _, _ = select.select([master], [], [], self.tick_s)
            now = _now_ms()
            with self._lock:
                if ready:
                    try:
                        data = os.read(master, 4096)
                    except OSError:  # nobody has the port open
                        data = b""
                    if not self.deaf:
                        self.board.feed(data, now)
                held = {name: debouncer.pressed for name, _, debouncer in self.board.buttons}
                for name, at in list(self._releases.items()):
                    # a press lasts until the board has taken it, even if this loop was held up
                    if time.monotonic() >= at and held.get(name, True):
                        self.pins[name].release()
                        del self._releases[name]
                self.board.tick(now)
                out, self._out[:] = list(self._out), []
            for text in out:
                self._send(master, text)

    def _send(self, master: int, text: str) -> None:
        if self.silent:
            return
        event = not text.startswith("0 ")
        if event and self.drop_events > 0:
            self.drop_events -= 1
            return
        copies = 1
        if event and self.duplicate_events > 0:
            self.duplicate_events -= 1
            copies = 2
        self.sent.append(text)
        for _ in range(copies):
            try:
                os.write(master, text.encode("latin-1"))
            except BlockingIOError:
                pass  # the host is not reading and the pty is full: the bytes are lost, like on USB


class SimulatedSerialBoard(SerialBoard):
    """A :class:`SerialBoard` wired to its own :class:`VirtualSerialBoard`: the demo's twin.

    ``source.twin.press("3")`` throws a 3 through the whole serial path; with ``layout="matrix"``
    the twin is the 4x4 key-matrix board (``press("water")``, ``press("11")``).
    """

    kind = "serial-board-twin"

    def __init__(self, name: str = "serial board (simulated)", layout: str = "buttons", **kwargs):
        self.twin = VirtualSerialBoard(layout=layout)
        self.twin.plug()
        super().__init__(self.twin.port, name, **kwargs)

    def press(self, button: str) -> None:
        """Press one of the twin's buttons (the demo's way to play on it)."""
        self.twin.press(button)

    def close(self) -> None:
        super().close()
        self.twin.close()
