"""The Pi Pico button board on USB serial (pyserial): handshake, events, LEDs, reconnects.

Wiring and flashing: docs/button-boards.md; the protocol: firmware/PROTOCOL.md. One worker thread
does all the talking: it finds the board (an explicit port, or ``"auto"``: a USB serial port with
the Raspberry Pi vendor id 0x2E8A that answers the hello; with several such ports it tries them in
turn), reads frames, acknowledges events,
pings every ``heartbeat_s``, sends the LED wanted, and after an unplug, a read error or
``silence_s`` without a frame, reconnects with backoff. Garbled lines are logged and counted in
``health.details`` and change nothing else.

Each press is taken exactly once: the board numbers its events and resends them until
acknowledged; this side takes them only in order and remembers, per board boot, the number it
expects next -- so neither a dropped frame, nor a resend, nor a reconnect loses or doubles a press.

    board = SerialBoard("auto")            # or "/dev/ttyACM0", or a pty path in tests
    board.start(service.handle_input)
    board.show_turn("american")            # whose turn the LEDs show
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from . import board_protocol as bp
from .base import DiceSource, InputEvent

log = logging.getLogger(__name__)

PICO_VID = 0x2E8A  # Raspberry Pi (the Pico's USB vendor id)


class BoardLost(Exception):
    """The session with the board ended (unplugged, silent, or no hello); the text says why."""


def find_pico_ports() -> list:
    """pyserial's port infos for USB serial ports with the Raspberry Pi vendor id, by device name."""
    from serial.tools import list_ports

    return sorted((p for p in list_ports.comports() if p.vid == PICO_VID), key=lambda p: p.device)


def probe(path: str, timeout_s: float = 1.0, baudrate: int = 115200) -> dict:
    """Open ``path``, say hello, and return the board's hello as a dict; :class:`BoardLost` if none.

    ``nessie-companion doctor --probe`` uses it. It opens the port, so do not probe a port that a
    running companion holds.
    """
    import serial

    try:
        with serial.Serial(path, baudrate, timeout=0.05, write_timeout=1) as link:
            link.reset_input_buffer()
            link.write(bp.format_hello())
            reader = _LineReader(link)
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                for raw in reader.lines():
                    try:
                        message = bp.parse_line(raw)
                    except bp.GarbledLine:
                        continue
                    if message.kind == "HELLO":
                        _, protocol, firmware, boot_id, _ = message.args
                        return {"protocol": int(protocol), "firmware": firmware, "boot_id": boot_id}
    except (OSError, serial.SerialException) as exc:
        raise BoardLost(str(exc)) from None
    raise BoardLost(f"no hello within {timeout_s:g} s: not a Nessie board, or busy")


class SerialBoard(DiceSource):
    """A Pico button board on a serial port. ``port``: a device path or ``"auto"``."""

    kind = "serial-board"

    def __init__(self, port: str = "auto", name: str = "serial board", *, baudrate: int = 115200,
                 heartbeat_s: float = 1.0, silence_s: float = 3.0, hello_timeout_s: float = 1.0,
                 backoff_s: tuple[float, float] = (0.2, 5.0)):
        super().__init__(name)
        self.port = port
        self.baudrate = baudrate
        self.heartbeat_s, self.silence_s, self.hello_timeout_s = heartbeat_s, silence_s, hello_timeout_s
        self.backoff_s = backoff_s
        self.counters = {"garbled": 0, "impossible": 0, "duplicates": 0, "out_of_order": 0,
                         "board_errors": 0, "retries": 0, "sessions": 0}
        self.health.details = {"state": "stopped", "port": None, "board": None, "counters": self.counters}
        self._expected: int | None = None  # the event number wanted next from this boot
        self._boot_id: str | None = None
        self._led_wanted: str = "off"
        self._led_seq = 0
        self._led_pending: tuple[int, str, float] | None = None  # (seq, expedition, sent at)
        self._led_shown: str | None = None  # acknowledged by the board
        self._attempts = 0  # failed attempts, to go round several candidate ports
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected_event = threading.Event()  # set while a handshaken session runs (tests wait on it)

    @classmethod
    def from_config(cls, inputs: dict) -> "SerialBoard | None":
        """The board an ``[inputs]`` config section asks for, or None: ``serial_board`` is ``""``
        (none), ``"auto"``, a device path, ``"simulated"`` (the arcade-button twin, for the demo)
        or ``"simulated-matrix"`` (the key-matrix twin: 1-12 and the water symbol)."""
        port = inputs.get("serial_board", "")
        if not port:
            return None
        if port in ("simulated", "simulated-matrix"):
            from .simulated_board import SimulatedSerialBoard

            if port == "simulated":
                return SimulatedSerialBoard()
            return SimulatedSerialBoard("serial key matrix (simulated)", layout="matrix")
        return cls(port)

    # -- DiceSource ----------------------------------------------------------------------------
    def start(self, callback: Callable[[InputEvent], None]) -> None:
        self._callback = callback
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"{self.name} worker", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._thread = None
        super().close()
        self.health.details["state"] = "stopped"

    def show_turn(self, expedition: str | None) -> None:
        """Light the LED of the expedition whose turn it is; ``None`` (or a name with no LED): all
        out, as on the GPIO board. Sent as soon as the board is connected, and again after a replug."""
        self._led_wanted = expedition if expedition in bp.EXPEDITIONS else "off"

    # -- the worker ----------------------------------------------------------------------------
    def _set_state(self, state: str, error: str | None = None) -> None:
        self.health.details["state"] = state
        self.health.connected = state == "connected"
        if state == "connected":
            self.connected_event.set()
        else:
            self.connected_event.clear()
        if error:
            self.fail(error)

    def _find_port(self) -> str | None:
        if self.port != "auto":
            return self.port
        found = find_pico_ports()  # with several, each failed attempt moves on to the next
        return found[self._attempts % len(found)].device if found else None

    def _run(self) -> None:
        import serial

        delay = self.backoff_s[0]
        while not self._stop.is_set():
            path = self._find_port()
            if path is None:
                self._set_state("searching", "no Pico board (USB vendor 2E8A) found")
            else:
                self.health.details["port"] = path
                self._set_state("connecting")
                try:
                    with serial.Serial(path, self.baudrate, timeout=0.05, write_timeout=1) as link:
                        if self._session(link):
                            delay = self.backoff_s[0]  # a good session resets the backoff
                except (OSError, serial.SerialException, BoardLost) as exc:
                    self._attempts += 1
                    message = f"{path}: {exc}"
                    log.warning("serial board: %s", message)
                    self._set_state("disconnected", message)
            if self._stop.is_set():
                break
            self.counters["retries"] += 1
            self._stop.wait(delay)
            delay = min(delay * 2, self.backoff_s[1])

    def _session(self, link) -> bool:
        """Talk to one opened port until stopped; raises :class:`BoardLost` when the board goes."""
        link.reset_input_buffer()
        reader = _LineReader(link)
        hello = self._handshake(link, reader)
        self._on_hello(hello)
        self.counters["sessions"] += 1
        self._set_state("connected")
        self._led_pending = None
        self._led_shown = None  # tell the board again what it should show
        last_heard = last_ping = time.monotonic()
        while not self._stop.is_set():
            for raw in reader.lines():
                last_heard = time.monotonic()
                self._on_line(link, raw)
            now = time.monotonic()
            if now - last_heard > self.silence_s:
                raise BoardLost(f"board silent for {self.silence_s:g} s")
            if now - last_ping >= self.heartbeat_s:
                link.write(bp.format_ping())
                last_ping = now
            self._send_led(link, now)
        return True

    def _handshake(self, link, reader: "_LineReader") -> bp.Message:
        deadline = time.monotonic() + self.hello_timeout_s
        link.write(bp.format_hello())
        while time.monotonic() < deadline and not self._stop.is_set():
            for raw in reader.lines():
                try:
                    message = bp.parse_line(raw)
                except bp.GarbledLine:
                    continue  # noise before the hello (a board booting) is no error yet
                if message.kind == "HELLO":
                    if int(message.args[1]) not in bp.ACCEPTED_PROTOCOLS:
                        raise BoardLost(f"board speaks protocol {message.args[1]}; this host speaks "
                                        f"{', '.join(map(str, bp.ACCEPTED_PROTOCOLS))}: update the host")
                    return message
        raise BoardLost(f"no hello within {self.hello_timeout_s:g} s: not a Nessie board?")

    def _on_hello(self, hello: bp.Message) -> None:
        _, protocol, firmware, boot_id, first = hello.args
        if boot_id != self._boot_id:  # a new boot: its events start at the number it says
            self._boot_id, self._expected = boot_id, int(first)
        self.health.details["board"] = {"firmware": firmware, "boot_id": boot_id, "protocol": int(protocol)}
        log.info("serial board: hello from firmware %s, boot %s", firmware, boot_id)

    def _on_line(self, link, raw: bytes) -> None:
        try:
            message = bp.parse_line(raw)
        except bp.GarbledLine as exc:
            self.counters["garbled"] += 1
            log.error("serial board: garbled line %r: %s", raw[:40], exc)
            self.fail(f"garbled line: {exc}")
            return
        if message.is_event:
            self._on_event(link, message)
        elif message.kind == "HELLO":  # the board rebooted without the port closing
            self._on_hello(message)
            self._led_shown = self._led_pending = None
        elif message.kind == "ACK":
            if self._led_pending and int(message.args[0]) == self._led_pending[0]:
                self._led_shown, self._led_pending = self._led_pending[1], None
        elif message.kind == "PONG":
            if message.args[0] != self._led_wanted and self._led_pending is None:
                self._led_shown = None  # the board lost it: send again
        elif message.kind == "ERR":
            self.counters["board_errors"] += 1
            log.warning("serial board reports: %s", message.args[0])

    def _on_event(self, link, message: bp.Message) -> None:
        if message.seq != self._expected:
            if self._expected is not None and bp.seq_before(message.seq, self._expected):
                self.counters["duplicates"] += 1  # a resend of one taken already: acknowledge again
                link.write(bp.format_ack(message.seq))
            else:
                self.counters["out_of_order"] += 1  # one before it was lost; the board resends both
            return
        self._expected = bp.next_seq(message.seq)
        link.write(bp.format_ack(message.seq))
        try:
            event = bp.to_input_event(message, self.name)
        except bp.ImpossibleValue as exc:
            self.counters["impossible"] += 1
            log.error("serial board: %s", exc)
            self.fail(str(exc))
            return
        self.emit(event)

    def _send_led(self, link, now: float) -> None:
        want = self._led_wanted
        if want == self._led_shown:
            return
        if self._led_pending and self._led_pending[1] == want and now - self._led_pending[2] < 0.5:
            return  # sent, waiting for its acknowledgement
        self._led_seq = bp.next_seq(self._led_seq)
        link.write(bp.format_led(self._led_seq, want))
        self._led_pending = (self._led_seq, want, now)


class _LineReader:
    """Splits what arrives on a port into lines; an over-long run is reported once, then skipped
    up to its newline."""

    def __init__(self, link):
        self.link = link
        self.buffer = b""
        self.skipping = False

    def lines(self) -> list[bytes]:
        data = self.link.read(max(1, self.link.in_waiting))  # waits up to the port's timeout
        if not data:
            return []
        *lines, rest = (self.buffer + data).split(b"\n")
        if self.skipping and lines:
            lines, self.skipping = lines[1:], False  # the tail of the over-long line
        if self.skipping:
            rest = b""
        elif len(rest) > 4 * bp.MAX_LINE:
            lines.append(rest)  # reported as garbled (too long), the rest of it dropped
            rest, self.skipping = b"", True
        self.buffer = rest
        return [line for line in lines if line.strip(b"\r")]
