"""Loch Ness (Wettering) actions, as frozen dataclasses that round-trip through JSON. Pure.

Hidden things (movement cards, photo cards) come in as data when they are revealed at the table.

    >>> action_to_json(Reveal((3, 1, 4)))
    {'type': 'reveal', 'cards': [3, 1, 4], 'neutral': None, 'source': 'screen'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .box import KINDS
from companion.games.codec import SOURCES, as_tuple, decode, encode, is_int, is_name

COLOURS = ("blue", "green", "red", "yellow", "purple")
#: The action spaces: Dudy, Hospoda, Obchod, Hrad, Palírna, Kostel (and Hotel in the Free hotel variant).
SPACES = ("bagpipes", "pub", "shop", "castle", "distillery", "church", "hotel")


def _spot(v: Any) -> bool:
    return is_name(v, 16)


def _card(v: Any) -> bool:
    return is_int(v) and 0 <= v <= 20


@dataclass(frozen=True)
class NewGame:
    """Players' colours clockwise (the first holds the big reporter and starts), the three photo cards turned
    face up (``display``), big Nessie's water space (None: the box's first), and the variants
    ``storm`` (Bouřka!, the auction) and ``free_hotel`` (Volný hotel)."""

    type: ClassVar[str] = "new-game"
    players: tuple[str, ...]
    display: tuple[str, ...]
    nessie: str | None = None
    storm: bool = False
    free_hotel: bool = False

    def check(self, need) -> None:
        p = as_tuple(self, "players", need, lambda c: c in COLOURS, f"colours ({', '.join(COLOURS)})", 5)
        need(len(set(p)) == len(p), "each colour plays once")
        d = as_tuple(self, "display", need, lambda k: k in KINDS, "photo cards (head, body, tail)", 3)
        need(len(d) == 3, "display must be the three photo cards turned face up")
        need(self.nessie is None or _spot(self.nessie), "nessie must be a water space or null")
        need(isinstance(self.storm, bool) and isinstance(self.free_hotel, bool), "storm and free_hotel are true/false")


@dataclass(frozen=True)
class PlaceDummy:
    """Two players: one of the six cameras of the unused colours on an empty lurking spot."""

    type: ClassVar[str] = "place-dummy"
    spot: str

    def check(self, need) -> None:
        need(_spot(self.spot), "spot must be a lurking spot such as 'w4a'")


@dataclass(frozen=True)
class Reporter:
    """The player whose turn it is puts the second reporter on an action space (``spot``: where the pub's
    neutral camera goes)."""

    type: ClassVar[str] = "reporter"
    space: str
    spot: str | None = None

    def check(self, need) -> None:
        need(self.space in SPACES, f"space must be one of {', '.join(SPACES)}")
        need(self.spot is None or _spot(self.spot), "spot must be a lurking spot or null")


@dataclass(frozen=True)
class Camera:
    """The player whose turn it is puts (or moves) the camera worth ``value`` on the empty lurking spot ``spot``."""

    type: ClassVar[str] = "camera"
    value: int
    spot: str

    def check(self, need) -> None:
        need(is_int(self.value) and 1 <= self.value <= 20, "value must be the camera's value")
        need(_spot(self.spot), "spot must be a lurking spot such as 'w4a'")


@dataclass(frozen=True)
class Pass:
    """Skip an optional camera move (the second move, or the castle's)."""

    type: ClassVar[str] = "pass"

    def check(self, need) -> None:
        pass


@dataclass(frozen=True)
class Reveal:
    """The movement cards turned over, in the order of the card players; ``neutral``: the two-player neutral card."""

    type: ClassVar[str] = "reveal"
    cards: tuple[int, ...]
    neutral: int | None = None
    source: str = "screen"

    def check(self, need) -> None:
        cards = as_tuple(self, "cards", need, _card, "card values 0-20", 3)
        need(1 <= len(cards) <= 3, "cards must be the 1-3 movement cards played")
        need(self.neutral is None or _card(self.neutral), "neutral must be a card value or null")
        need(self.source in SOURCES, f"source must be one of {', '.join(SOURCES)}")


@dataclass(frozen=True)
class Bagpipes:
    """The bagpipes' player moves Nessie one more space (``use``) or not."""

    type: ClassVar[str] = "bagpipes"
    use: bool

    def check(self, need) -> None:
        need(isinstance(self.use, bool), "use must be true or false")


@dataclass(frozen=True)
class TakePhoto:
    """One photo card: from the ``display`` (then ``refill``: the card turned up in its place) or the ``deck``."""

    type: ClassVar[str] = "take-photo"
    source: str
    kind: str
    refill: str | None = None

    def check(self, need) -> None:
        need(self.source in ("display", "deck"), "source must be 'display' or 'deck'")
        need(self.kind in KINDS, f"kind must be one of {', '.join(KINDS)}")
        need(self.refill is None or self.refill in KINDS, f"refill must be one of {', '.join(KINDS)} or null")


@dataclass(frozen=True)
class Auction:
    """Storm!: every bidding player's bid (the sum of the 0-5 movement cards laid down)."""

    type: ClassVar[str] = "auction"
    bids: dict[str, int]

    def check(self, need) -> None:
        need(isinstance(self.bids, dict) and all(k in COLOURS and is_int(v) and 0 <= v <= 100
                                                 for k, v in self.bids.items()),
             "bids must be an object {colour: bid (a whole number 0-100)}")

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.bids.items())))


Action = NewGame | PlaceDummy | Reporter | Camera | Pass | Reveal | Bagpipes | TakePhoto | Auction
ACTION_TYPES: dict[str, type] = {c.type: c for c in (NewGame, PlaceDummy, Reporter, Camera, Pass, Reveal, Bagpipes,
                                                     TakePhoto, Auction)}


def action_to_json(action: Action) -> dict[str, Any]:
    return encode(action)


def action_from_json(data: Any) -> Action:
    return decode(data, ACTION_TYPES)
