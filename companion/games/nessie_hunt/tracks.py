"""The four expedition tracks: loops of spaces the leaders move round, anticlockwise.

Pure: no I/O. Tracks are built by ``box.py`` from the box profile.
"""

from __future__ import annotations

from dataclasses import dataclass

Point = tuple[float, float]

#: Seating order, clockwise; also the order of play in every stage (Independent first).
EXPEDITIONS = ("independent", "japanese", "british", "american")

#: What the leader's space hides, by track: the three parts of a loch address.
REVEALS = ("sector", "column", "row", "none")


@dataclass(frozen=True, slots=True)
class TrackSpace:
    index: int
    at: Point
    symbol: str | None = None  # the hidden capital letter, number or small letter; None: blank
    star: bool = False  # the large '*': take a LOGISTICS card
    start: str | None = None  # the expedition's name on its start space

    @property
    def is_start(self) -> bool:
        return self.start is not None


@dataclass(frozen=True)
class Track:
    expedition: str
    colour: str
    reveals: str
    space_diameter: float
    spaces: tuple[TrackSpace, ...]

    def __len__(self) -> int:
        return len(self.spaces)

    def advance(self, position: int, steps: int) -> int:
        """The space reached by moving ``steps`` spaces on (anticlockwise, wrapping round)."""
        return (position + steps) % len(self.spaces)

    def to_json(self) -> dict:
        return {
            "expedition": self.expedition,
            "colour": self.colour,
            "reveals": self.reveals,
            "space_diameter_mm": self.space_diameter,
            "spaces": [
                {"index": s.index, "at_mm": list(s.at), "symbol": s.symbol, "star": s.star, "start": s.start}
                for s in self.spaces
            ],
        }
