"""Loch Ness (Obert) box profile: the Monster Track with its crossroads, the Viewing Areas with their
symbols, the die's faces and the photos' values, as data. Pure.

``parse_box(data, source)`` raises :class:`BoxProfileError` naming the file, the key and the reason.
Schema ``loch-ness-obert-box/1``; ``default_box.toml`` documents every key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from companion.errors import BoxProfileError
from companion.games.box_header import document_name

SCHEMA = "loch-ness-obert-box/1"
WATER = "water"


@dataclass(frozen=True)
class Circle:
    id: str
    next: tuple[str, ...]  # the circles ahead; two or more at a crossroads
    symbols: frozenset[str]


@dataclass(frozen=True)
class ObertBox:
    name: str
    source: str
    digest: str
    track: dict[str, Circle]
    areas: dict[str, str]  # symbol -> label, in the box's order
    die_faces: tuple[int | str, ...]
    photos: tuple[tuple[int, int], ...]  # (value, how many), by value
    start: tuple[str, str, str]  # head, body, tail

    def paths(self, head: str, steps: int) -> list[tuple[str, ...]]:
        """Every way ahead of exactly ``steps`` circles from ``head`` (never backwards; a choice at crossroads)."""
        out: list[tuple[str, ...]] = []
        stack: list[tuple[str, ...]] = [()]
        while stack:
            path = stack.pop()
            if len(path) == steps:
                out.append(path)
                continue
            here = path[-1] if path else head
            for n in reversed(self.track[here].next):
                stack.append(path + (n,))
        return out

    def placements(self) -> list[tuple[str, str, str]]:
        """Every (head, body, tail) on three adjacent circles in order (tail -> body -> head ahead)."""
        return [(h, b, t) for t in self.track for b in self.track[t].next for h in self.track[b].next]

    def is_placement(self, head: str, body: str, tail: str) -> bool:
        return (tail in self.track and body in self.track[tail].next and head in self.track[body].next)

    def to_json(self) -> dict:
        return {"name": self.name, "digest": self.digest, "areas": self.areas, "die_faces": list(self.die_faces),
                "photos": {str(v): n for v, n in self.photos}, "start": list(self.start),
                "track": {c.id: {"next": list(c.next), "symbols": sorted(c.symbols)} for c in self.track.values()}}


def parse_box(data: Any, source: str = "<Loch Ness board>") -> ObertBox:
    def fail(key: str, reason: str) -> BoxProfileError:
        return BoxProfileError(source, key, reason)

    name = document_name(data, SCHEMA, source)
    areas = data.get("areas")
    if not isinstance(areas, dict) or not areas or not all(isinstance(v, str) for v in areas.values()):
        raise fail("areas", "expected a table of Viewing Areas: symbol = \"label\"")
    raw = data.get("track")
    if not isinstance(raw, dict) or len(raw) < 3:
        raise fail("track", "expected a table of at least 3 circles")
    track = {}
    for cid, c in raw.items():
        path = f"track.{cid}"
        if not isinstance(c, dict):
            raise fail(path, "expected { next = [...], symbols = [...] }")
        nxt = c.get("next")
        if not isinstance(nxt, list) or not nxt or not all(isinstance(n, str) for n in nxt):
            raise fail(f"{path}.next", "expected a non-empty list of circles ahead (Nessie never stops: no dead ends)")
        for n in nxt:
            if n not in raw:
                raise fail(f"{path}.next", f"{n!r} is not a circle of the track")
        if len(set(nxt)) != len(nxt) or cid in nxt:
            raise fail(f"{path}.next", "the circles ahead must differ from each other and from the circle itself")
        syms = c.get("symbols", [])
        if not isinstance(syms, list):
            raise fail(f"{path}.symbols", "expected a list of Viewing Area symbols")
        for sym in syms:
            if sym not in areas:
                raise fail(f"{path}.symbols", f"{sym!r} is no Viewing Area's symbol; one of {', '.join(areas)}")
        track[cid] = Circle(cid, tuple(nxt), frozenset(syms))
    faces = data.get("die_faces")
    if (not isinstance(faces, list) or len(faces) != 12 or WATER not in faces
            or not all(f == WATER or (isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 30) for f in faces)):
        raise fail("die_faces", 'expected the twelve faces: numbers 1-30 and "water" (the water symbol)')
    photos = data.get("photos")
    if not isinstance(photos, dict) or not photos:
        raise fail("photos", "expected a table: value = how many photos")
    counted = []
    for k, n in photos.items():
        if not str(k).isdigit() or not 1 <= int(k) <= 20:
            raise fail(f"photos.{k}", "a photo's value is a whole number 1-20")
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 100:
            raise fail(f"photos.{k}", f"expected how many photos (0-100), got {n!r}")
        counted.append((int(k), n))
    if sum(n for _, n in counted) == 0:
        raise fail("photos", "the bag needs photos")
    start = data.get("start", {}).get("nessie") if isinstance(data.get("start"), dict) else None
    if not isinstance(start, list) or len(start) != 3:
        raise fail("start.nessie", "expected [head, body, tail]")
    box = ObertBox(name, source, "", track, dict(areas), tuple(faces), tuple(sorted(counted)), tuple(start))
    if not box.is_placement(*start):
        raise fail("start.nessie", "head, body and tail must lie on adjacent circles in order (tail -> body -> head)")
    digest = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return ObertBox(name, source, digest, track, dict(areas), tuple(faces), tuple(sorted(counted)), tuple(start))
