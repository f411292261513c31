"""Nessie button board logic: debounce, event queue with resend, and the line protocol.

Runs unchanged on the Pico (MicroPython) and on CPython (tests, the simulated board), because it
touches hardware only through *pins* and a *write* function handed in:

* an input pin must have ``value()`` -> 0 or 1 (``machine.Pin`` with ``PULL_UP`` has it);
  buttons are wired to ground, so 0 means pressed;
* an output pin must have ``value(v)`` with v 0 or 1 (an LED through a resistor to ground);
* ``write(text)`` sends a str to the host (``sys.stdout.write`` on the Pico).

``FakePin`` below is the pin tests and the simulated board use. The protocol is written down in
PROTOCOL.md; keep this module and ``companion/inputs/board_protocol.py`` in step with it.
"""

try:
    from time import ticks_diff  # MicroPython: ticks wrap, so differences go through ticks_diff
except ImportError:  # CPython: plain monotonic milliseconds
    def ticks_diff(a, b):
        return a - b

PROTOCOL = 2  # 2: buttons 7-12 and WATER are sent (the key-matrix layout); see PROTOCOL.md
FIRMWARE = "0.2.0"
EXPEDITIONS = ("independent", "japanese", "british", "american")
EVENT_NAMES = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "water", "undo", "next")
MAX_LINE = 80  # bytes before the newline; longer is garbage
SEQ_MAX = 9999  # event numbers run 1..9999 then wrap to 1; 0 marks an unnumbered control frame
PRESS_MS = 3  # a press counts once the contact has read closed this long (see docs/button-boards.md)
RELEASE_MS = 25  # ... and is over once it has read open this long: release chatter is no new press
RESEND_MS = 300  # an event not acknowledged by then is sent again (with the same number)
QUEUE_MAX = 32  # events kept for resending; more are dropped and counted


def crc8(data):
    """CRC-8 (polynomial 0x07, init 0, the SMBus one) of bytes or an ASCII str."""
    if isinstance(data, str):
        data = data.encode()
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def encode(seq, body):
    """One frame: ``'<seq> <body>*<CRC>\\n'``, the CRC over ``'<seq> <body>'`` in two hex digits."""
    text = "%d %s" % (seq, body)
    return "%s*%02X\n" % (text, crc8(text))


def decode(raw):
    """``(seq, words)`` from one line without its newline (bytes or str); ``ValueError`` if garbled."""
    if isinstance(raw, str):
        raw = raw.encode()
    if len(raw) > MAX_LINE:
        raise ValueError("too long")
    for b in raw:
        if b < 32 or b > 126:
            raise ValueError("not printable ASCII")
    text = raw.decode()
    star = text.rfind("*")
    if star < 0 or len(text) - star != 3:
        raise ValueError("no checksum")
    try:
        crc = int(text[star + 1:], 16)
    except ValueError:
        raise ValueError("bad checksum digits")
    if crc8(text[:star]) != crc:
        raise ValueError("wrong checksum")
    words = text[:star].split()
    if len(words) < 2 or not words[0].isdigit() or int(words[0]) > SEQ_MAX:
        raise ValueError("bad sequence number")
    return int(words[0]), words[1:]


def next_seq(seq):
    return 1 if seq >= SEQ_MAX else seq + 1


def event_body(name):
    if name in ("undo", "next", "water"):
        return name.upper()
    return "BTN " + name


class FakePin:
    """A pin for tests: ``press()``/``release()`` an input; an output remembers ``value(v)``."""

    def __init__(self, level=1):
        self.level = level

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = 1 if v else 0

    def press(self):
        self.level = 0

    def release(self):
        self.level = 1


class Debouncer:
    """Turns raw contact readings into presses: closed for PRESS_MS is a press, open for RELEASE_MS ends it.

    ``update(closed, now_ms)`` returns True exactly once per press, however long it is held and
    however much the contact bounces. ``held`` (the contact closed at boot) makes it start pressed,
    so a button held down at boot, or a stuck one, counts only after it has been seen open.
    """

    def __init__(self, press_ms=PRESS_MS, release_ms=RELEASE_MS, held=False):
        self.press_ms, self.release_ms = press_ms, release_ms
        self.pressed = held
        self.raw = False
        self.since = None

    def update(self, closed, now):
        if self.since is None or closed != self.raw:
            self.raw, self.since = closed, now
        steady = ticks_diff(now, self.since)
        if closed and not self.pressed and steady >= self.press_ms:
            self.pressed = True
            return True
        if not closed and self.pressed and steady >= self.release_ms:
            self.pressed = False
        return False


class Board:
    """The board: scan buttons, number and resend events until acknowledged, obey the host.

    ``buttons`` is a list of ``(name, pin)`` with names from EVENT_NAMES; ``leds`` a list of
    ``(expedition, pin)``. Call ``tick(now_ms)`` every millisecond or so and ``feed(data, now_ms)``
    with whatever bytes arrived from the host. ``scan``: called before the pins are read (a key
    matrix's ``scan``, whose keys are then the ``buttons``); None for buttons on their own pins.
    """

    def __init__(self, buttons, leds, write, boot_id, now=0, press_ms=PRESS_MS, release_ms=RELEASE_MS,
                 scan=None):
        for name, _ in buttons:
            if name not in EVENT_NAMES:
                raise ValueError("unknown button " + str(name))
        for name, _ in leds:
            if name not in EXPEDITIONS:
                raise ValueError("unknown LED " + str(name))
        self.scan = scan
        if scan is not None:
            scan()  # so a key held at boot is seen as held
        self.buttons = [(name, pin, Debouncer(press_ms, release_ms, pin.value() == 0)) for name, pin in buttons]
        self.leds = list(leds)
        self.write = write
        self.boot_id = boot_id
        self.seq = 1  # the number the next event gets
        self.queue = []  # [seq, body, sent_at] not yet acknowledged, oldest first
        self.led = "off"
        self.buffer = bytearray()
        self.skipping = False  # inside an over-long line: drop bytes up to the next newline
        self.counters = {"garbled": 0, "unknown": 0, "dropped": 0, "resent": 0}
        self.hello()

    # -- to the host ---------------------------------------------------------------------------
    def send(self, seq, body):
        self.write(encode(seq, body))

    def hello(self):
        first = self.queue[0][0] if self.queue else self.seq
        self.send(0, "HELLO nessie-board %d %s %s %d" % (PROTOCOL, FIRMWARE, self.boot_id, first))

    def tick(self, now):
        if self.scan is not None:
            self.scan()
        for name, pin, debouncer in self.buttons:
            if debouncer.update(pin.value() == 0, now):
                self.press(name, now)
        if self.queue and ticks_diff(now, self.queue[0][2]) >= RESEND_MS:
            for item in self.queue:  # go back N: the host takes events only in order
                self.send(item[0], item[1])
                item[2] = now
                self.counters["resent"] += 1

    def press(self, name, now):
        if len(self.queue) >= QUEUE_MAX:
            self.counters["dropped"] += 1
            return
        item = [self.seq, event_body(name), now]
        self.seq = next_seq(self.seq)
        self.queue.append(item)
        self.send(item[0], item[1])

    # -- from the host -------------------------------------------------------------------------
    def feed(self, data, now=0):
        for b in data:
            if b == 10 or b == 13:  # newline ends a line; a lone CR too
                if self.skipping:
                    self.skipping = False
                elif self.buffer:
                    self.handle(bytes(self.buffer))
                self.buffer = bytearray()
            elif not self.skipping:
                self.buffer.append(b)
                if len(self.buffer) > MAX_LINE:
                    self.buffer = bytearray()
                    self.skipping = True
                    self.reject("too long")

    def reject(self, why):
        self.counters["garbled"] += 1
        self.send(0, "ERR " + why.replace(" ", "-"))

    def handle(self, raw):
        try:
            seq, words = decode(raw)
        except ValueError as exc:
            self.reject(str(exc))
            return
        cmd, args = words[0], words[1:]
        if cmd == "HELLO" and len(args) == 2 and args[0] == "nessie-host":
            self.hello()
        elif cmd == "PING" and not args:
            self.send(0, "PONG " + self.led)
        elif cmd == "LED" and len(args) == 1 and (args[0] in EXPEDITIONS or args[0] == "off"):
            self.show(args[0])
            self.send(0, "ACK %d" % seq)
        elif cmd == "ACK" and len(args) == 1 and args[0].isdigit():
            self.acked(int(args[0]))
        else:
            self.counters["unknown"] += 1
            self.send(0, "ERR unknown-command")

    def show(self, expedition):
        self.led = expedition
        for name, pin in self.leds:
            pin.value(1 if name == expedition else 0)

    def acked(self, seq):
        """A cumulative acknowledgement: every queued event up to ``seq`` has been taken."""
        for i, item in enumerate(self.queue):
            if item[0] == seq:
                self.queue = self.queue[i + 1:]
                return
