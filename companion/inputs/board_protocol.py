"""The Pico button board's line protocol, host side: pure functions, no IO (see firmware/PROTOCOL.md).

Every line is one frame ``<seq> <WORDS...>*<CRC>`` ending in a newline; the CRC is CRC-8/SMBus of
everything before ``*``, in two upper-case hex digits. ``parse_line`` turns a line from the board
into a :class:`Message` or raises :class:`GarbledLine`; the ``format_*`` functions build the lines
the host sends. The firmware's ``board_logic.py`` holds the device half; a test checks that both
agree.

    >>> format_led(7, "american")
    b'7 LED american*D6\\n'
    >>> parse_line(b'12 BTN 4*9A')
    Message(seq=12, kind='BTN', args=('4',))
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import CompanionError

from .base import WATER, InputEvent

PROTOCOL = 2  # 2: buttons 7-12 and WATER are sent (the key-matrix layout); frames as in 1
ACCEPTED_PROTOCOLS = (1, 2)  # a version-1 board (arcade buttons 1-6) still works with this host
MAX_LINE = 80
SEQ_MAX = 9999
EXPEDITIONS = ("independent", "japanese", "british", "american")
EVENT_KINDS = ("BTN", "UNDO", "NEXT", "WATER")  # numbered, acknowledged, resent until acknowledged


class GarbledLine(CompanionError, ValueError):
    """A line from the board that is not a well-formed frame; the text says why."""


class ImpossibleValue(GarbledLine):
    """A well-formed event frame naming a button no board has (``BTN 0``, ``BTN 13``)."""


@dataclass(frozen=True)
class Message:
    seq: int
    kind: str
    args: tuple[str, ...] = ()

    @property
    def is_event(self) -> bool:
        return self.kind in EVENT_KINDS


def crc8(data: bytes) -> int:
    """CRC-8/SMBus (polynomial 0x07, init 0); ``crc8(b"123456789") == 0xF4``."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def frame(seq: int, body: str) -> bytes:
    if not 0 <= seq <= SEQ_MAX:
        raise ValueError(f"sequence number out of range: {seq}")
    text = f"{seq} {body}".encode("ascii")
    return text + b"*%02X\n" % crc8(text)


def format_hello() -> bytes:
    return frame(0, f"HELLO nessie-host {PROTOCOL}")


def format_ping() -> bytes:
    return frame(0, "PING")


def format_ack(seq: int) -> bytes:
    return frame(0, f"ACK {seq}")


def format_led(seq: int, expedition: str | None) -> bytes:
    """Light one expedition's LED (the others go out); ``None`` or ``"off"``: all out."""
    expedition = expedition or "off"
    if expedition not in EXPEDITIONS and expedition != "off":
        raise ValueError(f"no LED for {expedition!r}; expeditions are {', '.join(EXPEDITIONS)}")
    return frame(seq, f"LED {expedition}")


def next_seq(seq: int) -> int:
    return 1 if seq >= SEQ_MAX else seq + 1


def seq_before(a: int, b: int) -> bool:
    """True when event number ``a`` came before ``b`` (numbers wrap 9999 -> 1, half the ring back)."""
    return 0 < (b - a) % SEQ_MAX < SEQ_MAX // 2


def split_frame(raw: bytes) -> tuple[int, list[str]]:
    """``(seq, words)`` of one line (its newline stripped or not); :class:`GarbledLine` if not a frame."""
    raw = raw.rstrip(b"\r\n")
    if len(raw) > MAX_LINE:
        raise GarbledLine(f"line too long ({len(raw)} bytes)")
    if any(b < 32 or b > 126 for b in raw):
        raise GarbledLine("not printable ASCII")
    star = raw.rfind(b"*")
    if star < 0 or len(raw) - star != 3:
        raise GarbledLine("no checksum")
    try:
        crc = int(raw[star + 1:], 16)
    except ValueError:
        raise GarbledLine("bad checksum digits") from None
    if crc8(raw[:star]) != crc:
        raise GarbledLine(f"wrong checksum {crc:02X}, expected {crc8(raw[:star]):02X}")
    words = raw[:star].decode("ascii").split()
    if len(words) < 2 or not words[0].isdigit() or int(words[0]) > SEQ_MAX:
        raise GarbledLine("bad sequence number")
    return int(words[0]), words[1:]


# what each message from the board must carry: kind -> (number of args, check of the args)
_SHAPES = {
    "HELLO": (5, lambda a: a[0] == "nessie-board" and a[1].isdigit() and a[4].isdigit()
              and 1 <= int(a[4]) <= SEQ_MAX),
    "BTN": (1, lambda a: a[0].isdigit() and len(a[0]) <= 3),  # the range: to_input_event
    "UNDO": (0, None), "NEXT": (0, None), "WATER": (0, None),
    "PONG": (1, lambda a: a[0] in EXPEDITIONS or a[0] == "off"),
    "ACK": (1, lambda a: a[0].isdigit() and int(a[0]) <= SEQ_MAX),
    "ERR": (1, None),
}


def parse_line(raw: bytes) -> Message:
    """One line from the board as a :class:`Message`; :class:`GarbledLine` for anything else."""
    seq, words = split_frame(raw)
    kind, args = words[0], tuple(words[1:])
    if kind not in _SHAPES:
        raise GarbledLine(f"unknown command {kind!r}")
    count, check = _SHAPES[kind]
    if len(args) != count or (check is not None and not check(args)):
        raise GarbledLine(f"malformed {kind}: {' '.join(args) or '(no arguments)'}")
    if (kind in EVENT_KINDS) != (seq != 0):
        raise GarbledLine(f"{kind} with sequence number {seq}")
    return Message(seq, kind, args)


def to_input_event(message: Message, source: str) -> InputEvent:
    """The :class:`InputEvent` an event message means: ``BTN 1``..``BTN 12`` a throw of that many
    pips, ``WATER`` a throw of the water symbol, ``UNDO``/``NEXT`` themselves.

    Whether the die of the game being played has that face is the game's business (a d6 game
    refuses a 9 with a clear message); a button no board has raises :class:`ImpossibleValue`, so
    it is counted, never thrown.
    """
    if message.kind == "UNDO":
        return InputEvent("undo", None, source)
    if message.kind == "NEXT":
        return InputEvent("next", None, source)
    if message.kind == "WATER":
        return InputEvent("throw", WATER, source)
    if message.kind == "BTN" and 1 <= int(message.args[0]) <= 12:
        return InputEvent("throw", int(message.args[0]), source)
    raise ImpossibleValue(f"impossible value: {message.kind} {' '.join(message.args)}".strip())
