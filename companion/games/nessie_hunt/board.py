"""The loch: a grid of slightly elongated hexagons, their addresses and their geometry.

An address such as ``D3b`` names one loch hex:

* the capital letter is a *sector* of columns along the loch (``A`` at the Fort Augustus end),
* the number is the column within that sector (``1`` .. columns per sector),
* the small letter is the row across the loch (``a`` on the north-west shore).

With column ``c = columns_per_sector * (capital - 'A') + (number - 1)`` and row ``r = small - 'a'``
the submerged monsters lie four hexes left ``(c-4, r)``, right ``(c+4, r)``, up ``(c, r-4)`` and
down ``(c, r+4)`` of the surface hex, each only where that hex is on the loch.

The hexes are flat-topped and stand in columns; odd columns sit half a hex lower, so that
"four columns left" and "four rows up" are straight lines on the board. All geometry is in
millimetres on the board plane, x along the loch, y across it (downwards, towards the
south-east shore), origin at the board's top-left corner.

Pure: no I/O. Build a :class:`Loch` from a parsed box profile (see ``box.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from companion.errors import InvalidAddress

Point = tuple[float, float]

#: Directions of the submerged monsters, in the order the rulebook counts them.
SUBMERGED_DIRECTIONS = ("left", "right", "up", "down")
_OFFSETS = {"left": (-4, 0), "right": (4, 0), "up": (0, -4), "down": (0, 4)}


@dataclass(frozen=True, slots=True)
class Hex:
    """One loch hexagon: its address, grid position and outline in millimetres."""

    address: str
    column: int
    row: int
    center: Point
    polygon: tuple[Point, ...]

    def __repr__(self) -> str:
        return f"Hex({self.address!r})"


@dataclass(frozen=True)
class HexGrid:
    """The grid parameters of a box profile's loch (see ``docs`` in the default box profile)."""

    origin: Point  # top-left corner of column 0's bounding box, mm
    hex_width: float  # vertex to vertex, along the loch, mm
    hex_height: float  # flat side to flat side, across the loch, mm
    sectors: str = "ABCDEFGH"
    columns_per_sector: int = 6
    rows: str = "abcdef"

    @property
    def columns(self) -> int:
        return len(self.sectors) * self.columns_per_sector

    def center(self, column: int, row: int) -> Point:
        x0, y0 = self.origin
        x = x0 + self.hex_width / 2 + column * 0.75 * self.hex_width
        y = y0 + self.hex_height / 2 + row * self.hex_height + (self.hex_height / 2 if column % 2 else 0.0)
        return (round(x, 4), round(y, 4))

    def polygon(self, column: int, row: int) -> tuple[Point, ...]:
        """The six corners, clockwise on screen, starting at the left-most corner."""
        cx, cy = self.center(column, row)
        w, h = self.hex_width / 2, self.hex_height / 2
        q = self.hex_width / 4
        pts = ((cx - w, cy), (cx - q, cy - h), (cx + q, cy - h), (cx + w, cy), (cx + q, cy + h), (cx - q, cy + h))
        return tuple((round(x, 4), round(y, 4)) for x, y in pts)

    def address(self, column: int, row: int) -> str:
        sector, within = divmod(column, self.columns_per_sector)
        return f"{self.sectors[sector]}{within + 1}{self.rows[row]}"

    def all_positions(self) -> Iterator[tuple[int, int]]:
        for column in range(self.columns):
            for row in range(len(self.rows)):
                yield column, row


@dataclass(frozen=True)
class Submerged:
    """Where the four submerged monsters go for one surface hex (``None``: off the loch)."""

    left: str | None
    right: str | None
    up: str | None
    down: str | None

    def placed(self) -> dict[str, str]:
        """Only the monsters that lie on the loch, by direction."""
        return {d: a for d, a in self.as_dict().items() if a is not None}

    def as_dict(self) -> dict[str, str | None]:
        return {"left": self.left, "right": self.right, "up": self.up, "down": self.down}


@dataclass(frozen=True)
class Loch:
    """Every loch hex of one board, looked up by address or by grid position."""

    grid: HexGrid
    hexes: tuple[Hex, ...]
    shore_outline: tuple[Point, ...]
    _by_address: dict[str, Hex] = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    _by_position: dict[tuple[int, int], Hex] = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    _pattern: re.Pattern = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_address", {h.address: h for h in self.hexes})
        object.__setattr__(self, "_by_position", {(h.column, h.row): h for h in self.hexes})
        pattern = (
            f"^([{re.escape(self.grid.sectors)}])([1-{self.grid.columns_per_sector}])"
            f"([{re.escape(self.grid.rows)}])$"
        )
        object.__setattr__(self, "_pattern", re.compile(pattern))

    @classmethod
    def from_grid(
        cls, grid: HexGrid, addresses: Iterable[str] | None = None, shore_outline: Iterable[Point] | None = None
    ) -> "Loch":
        """Build the loch from grid parameters; ``addresses`` limits it to those hexes (default: all)."""
        wanted = None if addresses is None else set(addresses)
        hexes = []
        for column, row in grid.all_positions():
            address = grid.address(column, row)
            if wanted is None or address in wanted:
                hexes.append(Hex(address, column, row, grid.center(column, row), grid.polygon(column, row)))
        if wanted is not None:
            unknown = wanted - {h.address for h in hexes}
            if unknown:
                raise InvalidAddress(f"not an address on this grid: {', '.join(sorted(unknown))}")
        outline = tuple(shore_outline) if shore_outline is not None else trace_outline(h.polygon for h in hexes)
        return cls(grid, tuple(hexes), outline)

    def __len__(self) -> int:
        return len(self.hexes)

    def __contains__(self, address: object) -> bool:
        return address in self._by_address

    def parse(self, text: str) -> Hex:
        """The hex named by ``text`` (exact case: ``D3b``), or :class:`InvalidAddress` saying why."""
        if not isinstance(text, str):
            raise InvalidAddress(f"an address is text such as 'D3b', not {type(text).__name__}")
        m = self._pattern.match(text.strip())
        if not m:
            g = self.grid
            raise InvalidAddress(
                f"{text!r} is not a loch address: expected a capital letter {g.sectors[0]}-{g.sectors[-1]}, "
                f"a number 1-{g.columns_per_sector} and a small letter {g.rows[0]}-{g.rows[-1]}, e.g. 'D3b'"
            )
        found = self._by_address.get(m.group(0))
        if found is None:
            raise InvalidAddress(f"{text!r} is not on the loch of this board")
        return found

    def at(self, column: int, row: int) -> Hex | None:
        """The loch hex at a grid position, or ``None`` where the grid is land or off the board."""
        return self._by_position.get((column, row))

    def submerged(self, surface: str) -> Submerged:
        """The four submerged monsters' hexes for a surface hex (rulebook, stage two, step four)."""
        h = self.parse(surface)
        found = {}
        for direction, (dc, dr) in _OFFSETS.items():
            other = self.at(h.column + dc, h.row + dr)
            found[direction] = other.address if other else None
        return Submerged(**found)

    def locate(self, surface: str) -> dict:
        """The ``locate --json`` contract: the surface hex and its four submerged monsters."""
        h = self.parse(surface)
        return {"surface": h.address, "submerged": self.submerged(h.address).as_dict()}


def trace_outline(polygons: Iterable[Iterable[Point]]) -> tuple[Point, ...]:
    """The outer boundary of a union of hexagons that share edges exactly (the shore line).

    An edge used by one hexagon only lies on the boundary; chaining those edges end to end gives
    the outline. For a loch made of several separate pieces the longest ring is returned.
    """
    def key(p: Point) -> tuple[float, float]:
        return (round(p[0], 3), round(p[1], 3))

    count: dict[frozenset, int] = {}
    for poly in polygons:
        pts = [key(p) for p in poly]
        for a, b in zip(pts, pts[1:] + pts[:1]):
            edge = frozenset((a, b))
            count[edge] = count.get(edge, 0) + 1
    neighbours: dict[Point, list[Point]] = {}
    for edge, n in count.items():
        if n == 1:
            a, b = tuple(edge)
            neighbours.setdefault(a, []).append(b)
            neighbours.setdefault(b, []).append(a)
    rings: list[list[Point]] = []
    unvisited = set(neighbours)
    while unvisited:
        start = min(unvisited)
        ring, prev, here = [start], None, start
        unvisited.discard(start)
        while True:
            options = [p for p in neighbours[here] if p != prev and (p in unvisited or p == start)]
            if not options:
                break
            nxt = min(options)
            if nxt == start:
                break
            ring.append(nxt)
            unvisited.discard(nxt)
            prev, here = here, nxt
        rings.append(ring)
    return tuple(max(rings, key=len)) if rings else ()
