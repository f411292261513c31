"""Loch Ness (Walter Obert) rules: Nessie's three parts on the Monster Track, the photographers on the
Viewing Areas, photos from the bag. Actions in, state out; no I/O, clock or chance (the d12 and the
photos drawn come in as actions).

Phases: ``place`` (photographers go on the Viewing Areas in turn) -> every turn either ``roll`` (a
number: ``move`` Nessie exactly that far, a choice at each crossroads; the water symbol: ``dive``,
place her anywhere) and then ``photos`` (each photographer that sees her keeps one photo), or
``move-photographer`` -> ... -> ``over`` when the bag is empty.

    >>> from . import make_game
    >>> game = make_game()
    >>> s = game.apply(None, NewGame(("red", "yellow")))
    >>> game.prompt(s)
    'Red: put a photographer on an empty Viewing Area (1 of 6).'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from companion.errors import IllegalAction

from .actions import (COLOURS, PHOTOGRAPHERS, Action, MoveNessie, MovePhotographer, NewGame, PlaceNessie,
                      PlacePhotographer, Photos, Roll, action_from_json, action_to_json)
from .box import WATER, ObertBox

PARTS = ("head", "body", "tail")
R_SETUP = ("Setting Up: 'If you're playing with two players, one player will be red and the other yellow. ... If "
           "you're playing with more than two players, each player chooses one color and takes 2 photographers'")
R_ORDER = ("Setting Up: 'All pieces of Nessie have to be put in order: first the head, then the body and finally the "
           "tail. Each piece will be in a different circle of the Monster Track. These circles have to be adjacent'")
R_AREA = "Starting to Play: 'each Viewing Area can only have one photographer! You must choose an empty Viewing Area.'"
R_MOVE = ("Roll the Die and Move Nessie: 'you have to move Nessie the number of circles equal to the number rolled. "
          "Nessie can't go backwards, she can only move ahead on the Monster Track. If Nessie is on a crossroads, you "
          "choose which way she moves.'")
R_DIVE = ("'If you roll the water symbol, Nessie dives under the water! Pick up all three Nessie parts and place them "
          "anywhere on the Monster Track you want! Remember to keep all three parts together and in the right order'")
R_PHOTOS = ("'Draw one photo for each part of Nessie the photographer can see ... Now choose which one photo you want "
            "to keep ... If there are not enough photos in the bag, draw them all and choose which one to keep.'")
R_ONE = ("Extended Rules: 'draw one photo at a time: if you like the photo, you can stop drawing and keep it. ... If "
         "you draw your last photo, you must keep it!'")
R_PUSH = ("Extended Rules: 'After you roll the die, you can discard one of your photos (put it back in the bag) to add "
          "or subtract a number of circles from the die roll equal to the value of the photo.'")
R_PHOTOGRAPHER = ("Move One Photographer: 'pick up any one of your photographers from the board and put him on any "
                  "empty Viewing Area.'")
R_END = "End of the Game: 'The game ends when there are no photos in the bag.'"


@dataclass(frozen=True, slots=True)
class ObertState:
    players: tuple[str, ...]  # colours, in turn order
    one_at_a_time: bool
    push: bool
    dive_no_photos: bool
    per_player: int  # photographers each
    phase: str  # "place", "turn", "move", "dive", "photos", "over"
    current: int  # whose turn (index into players)
    nessie: tuple[str, str, str]  # head, body, tail
    areas: tuple[tuple[str, str], ...]  # (Viewing Area, colour of its photographer), by area
    bag: tuple[tuple[int, int], ...]  # (value, photos of that value in the bag)
    photos: tuple[tuple[int, ...], ...]  # photos kept, per player
    roll: int | str | None = None
    queue: tuple[tuple[str, str, int], ...] = ()  # photographers still to draw: (colour, area, draws)
    event: str | None = None  # what just happened, for the table

    @property
    def player(self) -> str:
        return self.players[self.current]

    @property
    def in_bag(self) -> int:
        return sum(n for _, n in self.bag)

    def at(self, area: str) -> str | None:
        return dict(self.areas).get(area)

    def placed(self, colour: str) -> list[str]:
        return [a for a, c in self.areas if c == colour]

    def score(self, colour: str) -> int:
        return sum(self.photos[self.players.index(colour)])


def _bag_minus(bag, value: int, k: int = 1):
    return tuple((v, n - k if v == value else n) for v, n in bag)


def _bag_plus(bag, value: int):
    return _bag_minus(bag, value, -1)


class LochNessObert:
    id = "loch-ness-obert"
    name = "Loch Ness (Walter Obert)"
    rulebook = "001_1b689ec8ac2a19dd.txt"

    def __init__(self, box: ObertBox):
        self.box = box

    # -- setup ---------------------------------------------------------------------------------

    def _start(self, a: NewGame) -> ObertState:
        n = len(a.players)
        if not 2 <= n <= 5:
            raise IllegalAction(f"Loch Ness is for 2 to 5 players, not {n}", R_SETUP)
        if n == 2 and set(a.players) != {"red", "yellow"}:
            raise IllegalAction("with two players, one is red and the other yellow", R_SETUP)
        per = 3 if n == 2 else 2
        if n * per > len(self.box.areas):
            raise IllegalAction(f"{n * per} photographers but only {len(self.box.areas)} Viewing Areas on this board")
        nessie = tuple(a.nessie) if a.nessie is not None else self.box.start
        self._check_placement(*nessie)
        return ObertState(a.players, a.one_at_a_time, a.push, a.dive_no_photos, per, "place", 0, nessie, (),
                          self.box.photos, tuple(() for _ in a.players))

    def _check_placement(self, head: str, body: str, tail: str) -> None:
        for c in (head, body, tail):
            if c not in self.box.track:
                raise IllegalAction(f"{c!r} is not a circle of the Monster Track", R_ORDER)
        if not self.box.is_placement(head, body, tail):
            raise IllegalAction(f"head {head}, body {body}, tail {tail} are not three adjacent circles in order",
                                R_ORDER)

    # -- the fold ------------------------------------------------------------------------------

    def apply(self, s: ObertState | None, a: Action) -> ObertState:
        if isinstance(a, NewGame):
            if s is not None:
                raise IllegalAction("a game is already under way; start a new game instead")
            return self._start(a)
        if s is None:
            raise IllegalAction("no game yet: set one up first")
        if s.phase == "over":
            raise IllegalAction("the game is over", R_END)
        handler = {PlacePhotographer: self._place, Roll: self._roll, MoveNessie: self._move,
                   PlaceNessie: self._dive, Photos: self._photos, MovePhotographer: self._move_photographer}[type(a)]
        return handler(s, a)

    def _want(self, s: ObertState, phase: str, rule: str) -> None:
        if s.phase != phase:
            raise IllegalAction(f"not now: {self.prompt(s)}", rule)

    def _area(self, area: str) -> str:
        if area not in self.box.areas:
            raise IllegalAction(f"{area!r} is not a Viewing Area; one of {', '.join(self.box.areas)}", R_AREA)
        return area

    def _place(self, s: ObertState, a: PlacePhotographer) -> ObertState:
        self._want(s, "place", "Starting to Play: 'On your turn, put one of your photographers on the board.'")
        area = self._area(a.area)
        if s.at(area):
            raise IllegalAction(f"{self.box.areas[area]} already has the {s.at(area)} photographer", R_AREA)
        areas = tuple(sorted(s.areas + ((area, s.player),)))
        s = replace(s, areas=areas, current=(s.current + 1) % len(s.players), event=None)
        if len(areas) == s.per_player * len(s.players):
            return replace(s, phase="turn", current=0)  # 'When all players have put all of their photographers'
        return s

    def _roll(self, s: ObertState, a: Roll) -> ObertState:
        self._want(s, "turn", "Each Turn, You Can Either: roll the die and move Nessie or move one of your photographers")
        if a.value not in self.box.die_faces:
            faces = ", ".join(str(f) for f in self.box.die_faces)
            raise IllegalAction(f"{a.value!r} is not a face of this die ({faces})", "Game Contents: 'twelve sided die'")
        return replace(s, roll=a.value, phase="dive" if a.value == WATER else "move", event=None)

    def _move(self, s: ObertState, a: MoveNessie) -> ObertState:
        self._want(s, "move", R_MOVE)
        steps, photos = s.roll, s.photos
        if a.discard is not None:
            if not s.push:
                raise IllegalAction("pushing or slowing Nessie is an extended rule this game does not use", R_PUSH)
            mine = s.photos[s.current]
            if a.discard not in mine:
                raise IllegalAction(f"{s.player} has no {a.discard}-point photo to discard", R_PUSH)
            if len(a.path) not in (s.roll + a.discard, s.roll - a.discard):
                raise IllegalAction(f"with a {a.discard}-point photo Nessie moves {s.roll + a.discard}"
                                    + (f" or {s.roll - a.discard}" if s.roll > a.discard else "")
                                    + f" circles, not {len(a.path)}", R_PUSH)
            kept = list(mine)
            kept.remove(a.discard)
            photos = s.photos[:s.current] + (tuple(kept),) + s.photos[s.current + 1:]
            steps = len(a.path)
        if len(a.path) != steps:
            raise IllegalAction(f"Nessie moves exactly {steps} circles, not {len(a.path)}", R_MOVE)
        here = s.nessie[0]
        for c in a.path:
            if c not in self.box.track or c not in self.box.track[here].next:
                raise IllegalAction(f"{c} is not a circle ahead of {here}", R_MOVE)
            here = c
        full = (s.nessie[2], s.nessie[1], s.nessie[0]) + tuple(a.path)
        bag = _bag_plus(s.bag, a.discard) if a.discard is not None else s.bag
        s = replace(s, nessie=(full[-1], full[-2], full[-3]), photos=photos, bag=bag,
                    event=f"{s.player.capitalize()} moved Nessie {len(a.path)} circles"
                    + (f" (a {a.discard}-point photo back in the bag)" if a.discard else "") + ".")
        return self._shoot(s)

    def _dive(self, s: ObertState, a: PlaceNessie) -> ObertState:
        self._want(s, "dive", R_DIVE)
        self._check_placement(a.head, a.body, a.tail)
        s = replace(s, nessie=(a.head, a.body, a.tail), event=f"Nessie dived and surfaced at {a.head}.")
        if s.dive_no_photos:
            # Extended rule: 'no one can take any photos this turn!'
            return self._next_player(replace(s, event=s.event + " No photos this turn (extended rule)."))
        return self._shoot(s)

    def sees(self, s: ObertState, area: str) -> list[str]:
        """The parts of Nessie a photographer on ``area`` sees: those on circles with the area's symbol."""
        return [part for part, c in zip(PARTS, s.nessie) if area in self.box.track[c].symbols]

    def _shoot(self, s: ObertState) -> ObertState:
        """'Starting with the player who moved Nessie, each player in turn will draw photos ... for each
        photographer that can see the monster.'"""
        order = [s.players[(s.current + k) % len(s.players)] for k in range(len(s.players))]
        queue = tuple((colour, area, len(self.sees(s, area)))
                      for colour in order for area in self.box.areas
                      if s.at(area) == colour and self.sees(s, area))
        if not queue:
            return self._next_player(replace(s, event=(s.event or "") + " Nobody sees her."))
        return replace(s, phase="photos", queue=queue)

    def _photos(self, s: ObertState, a: Photos) -> ObertState:
        self._want(s, "photos", R_PHOTOS)
        colour, area, draws = s.queue[0]
        k = min(draws, s.in_bag)
        bag = dict(s.bag)
        if bag.get(a.keep, 0) < 1:
            raise IllegalAction(f"no {a.keep}-point photo is left in the bag", R_PHOTOS)
        if a.drawn is not None:
            need = Counter(a.drawn)
            short = [v for v, n in need.items() if bag.get(v, 0) < n]
            if short:
                raise IllegalAction(f"the bag does not hold that many {short[0]}-point photos", R_PHOTOS)
            if s.one_at_a_time:
                if not 1 <= len(a.drawn) <= k or a.drawn[-1] != a.keep:
                    raise IllegalAction(f"draw one at a time, at most {k}, and keep the last one drawn", R_ONE)
            elif len(a.drawn) != k:
                raise IllegalAction(f"the photographer on {self.box.areas[area]} draws {k} photo(s), not "
                                    f"{len(a.drawn)}", R_PHOTOS)
        i = s.players.index(colour)
        photos = s.photos[:i] + (s.photos[i] + (a.keep,),) + s.photos[i + 1:]
        s = replace(s, photos=photos, bag=_bag_minus(s.bag, a.keep), queue=s.queue[1:],
                    event=f"{colour.capitalize()} kept a {a.keep}-point photo from {self.box.areas[area]}.")
        if s.in_bag == 0:
            return replace(s, phase="over", queue=())
        if not s.queue:
            return self._next_player(s)
        return s

    def _move_photographer(self, s: ObertState, a: MovePhotographer) -> ObertState:
        self._want(s, "turn", R_PHOTOGRAPHER)
        src, dst = self._area(a.origin), self._area(a.to)
        if s.at(src) != s.player:
            raise IllegalAction(f"{s.player} has no photographer on {self.box.areas[src]}", R_PHOTOGRAPHER)
        if s.at(dst):
            raise IllegalAction(f"{self.box.areas[dst]} is not empty", R_AREA)
        areas = tuple(sorted([(x, c) for x, c in s.areas if x != src] + [(dst, s.player)]))
        return self._next_player(replace(s, areas=areas, event=f"{s.player.capitalize()} moved a photographer to "
                                         f"{self.box.areas[dst]}; no photos this turn."))

    def _next_player(self, s: ObertState) -> ObertState:
        return replace(s, phase="turn", current=(s.current + 1) % len(s.players), roll=None, queue=())

    # -- results -------------------------------------------------------------------------------

    def winners(self, s: ObertState) -> list[str]:
        """Most points; 'If there's a tie, the player who shot the most photos is the winner.'"""
        if s.phase != "over":
            return []
        best = max((s.score(c), len(s.photos[i])) for i, c in enumerate(s.players))
        return [c for i, c in enumerate(s.players) if (s.score(c), len(s.photos[i])) == best]

    # -- what the table is told ----------------------------------------------------------------

    def prompt(self, s: ObertState | None) -> str:
        if s is None:
            return "Set up a game: choose the colours, the best photographer first, and the extended rules."
        who = s.player.capitalize()
        if s.phase == "place":
            done = len(s.areas) + 1
            return f"{who}: put a photographer on an empty Viewing Area ({done} of {s.per_player * len(s.players)})."
        if s.phase == "turn":
            return f"{(s.event + ' ') if s.event else ''}{who}: roll the die, or move one of your photographers."
        if s.phase == "move":
            extra = " (or discard a photo to push or slow her)" if s.push and s.photos[s.current] else ""
            return f"{who} rolled {s.roll}: move Nessie exactly {s.roll} circles ahead{extra}."
        if s.phase == "dive":
            return f"{who} rolled the water symbol: Nessie dives! Place her anywhere on the Monster Track."
        if s.phase == "photos":
            colour, area, draws = s.queue[0]
            k = min(draws, s.in_bag)
            how = "one at a time, keep the last" if s.one_at_a_time else "keep one, the rest go back"
            return (f"{(s.event + ' ') if s.event else ''}{colour.capitalize()} on {self.box.areas[area]} sees "
                    f"{', '.join(self.sees(s, area))}: draw {k} photo(s) from the bag ({how}).")
        w = self.winners(s)
        names = " and ".join(c.capitalize() for c in w)
        return f"The bag is empty: game over. {names} {'win' if len(w) > 1 else 'wins'} with {s.score(w[0])} points."

    def legal_actions(self, s: ObertState | None) -> list[dict]:
        if s is None:
            return [self.setup_form()]
        free = [x for x in self.box.areas if not s.at(x)]
        if s.phase == "place":
            return [{"type": "place-photographer", "label": f"{s.player.capitalize()}: place a photographer",
                     "fields": [{"name": "area", "kind": "choice", "choices": free,
                                 "labels": [self.box.areas[x] for x in free]}]}]
        if s.phase == "turn":
            faces = list(dict.fromkeys(self.box.die_faces))
            return [{"type": "roll", "label": f"{s.player.capitalize()} rolled",
                     "fields": [{"name": "value", "kind": "choice", "choices": faces}]},
                    {"type": "move-photographer", "label": "Move a photographer",
                     "fields": [{"name": "origin", "kind": "choice", "choices": s.placed(s.player)},
                                {"name": "to", "kind": "choice", "choices": free}]}]
        if s.phase == "move":
            out = [self._paths_entry(s, s.roll, None)]
            if s.push:
                for v in sorted(set(s.photos[s.current])):
                    for n in (s.roll + v, s.roll - v):
                        if n >= 1:
                            out.append(self._paths_entry(s, n, v))
            return out
        if s.phase == "dive":
            places = self.box.placements()
            return [{"type": "place-nessie", "label": "Nessie surfaces at",
                     "fields": [{"name": "at", "kind": "choice", "spread": True,
                                 "choices": [{"head": h, "body": b, "tail": t} for h, b, t in places],
                                 "labels": [f"head {h}, body {b}, tail {t}" for h, b, t in places]}]}]
        if s.phase == "photos":
            values = [v for v, n in s.bag if n > 0]
            return [{"type": "photos", "label": f"{s.queue[0][0].capitalize()} keeps the photo worth",
                     "fields": [{"name": "keep", "kind": "choice", "choices": values}]}]
        return []

    def _paths_entry(self, s: ObertState, steps: int, discard: int | None) -> dict:
        paths = self.box.paths(s.nessie[0], steps)
        entry = {"type": "move-nessie",
                 "label": f"Move {steps}" + (f" (discard a {discard}-point photo)" if discard else ""),
                 "fields": [{"name": "path", "kind": "choice", "choices": [list(p) for p in paths],
                             "labels": [" → ".join(p) for p in paths]}]}
        if discard is not None:
            entry["fixed"] = {"discard": discard}
        return entry

    def setup_form(self) -> dict:
        return {"type": "new-game", "label": "New game", "fields": [
            {"name": "players", "kind": "list", "choices": list(COLOURS), "default": ["red", "yellow"],
             "help": "2 players: red and yellow"},
            {"name": "one_at_a_time", "kind": "bool", "help": "Extended rule: draw photos one at a time"},
            {"name": "push", "kind": "bool", "help": "Extended rule: discard a photo to push or slow Nessie"},
            {"name": "dive_no_photos", "kind": "bool", "help": "Extended rule: no photos after a dive"}]}

    def view(self, s: ObertState | None) -> dict:
        base = {"game": self.id, "name": self.name, "rulebook": self.rulebook, "box": self.box.name,
                "prompt": self.prompt(s), "legal": self.legal_actions(s), "setup": self.setup_form()}
        if s is None:
            return {**base, "started": False}
        return {**base, "started": True, "phase": s.phase, "turn": s.player, "roll": s.roll,
                "nessie": dict(zip(PARTS, s.nessie)), "photos_in_bag": s.in_bag,
                "bag": {str(v): n for v, n in s.bag},
                "options": {"one_at_a_time": s.one_at_a_time, "push": s.push, "dive_no_photos": s.dive_no_photos},
                "photographers": [{"area": x, "label": self.box.areas[x], "colour": c, "sees": self.sees(s, x)}
                                  for x, c in s.areas],
                "queue": [{"colour": c, "area": x, "draws": d} for c, x, d in s.queue],
                "winners": self.winners(s),
                "players": [{"name": c, "points": s.score(c), "photos": len(s.photos[i]),
                             "photo_values": list(s.photos[i]),
                             "photographers": ", ".join(self.box.areas[x] for x in s.placed(c))}
                            for i, c in enumerate(s.players)],
                "summary": [f"Nessie: head {s.nessie[0]}, body {s.nessie[1]}, tail {s.nessie[2]}",
                            f"Photos in the bag: {s.in_bag}"] + ([s.event] if s.event else [])}

    def parse_action(self, data) -> Action:
        # The dashboard sends a dive as {"type": "place-nessie", "at": {...}}; accept that shape too.
        if isinstance(data, dict) and data.get("type") == "place-nessie" and isinstance(data.get("at"), dict):
            data = {"type": "place-nessie", **data["at"]}
        return action_from_json(data)

    action_to_json = staticmethod(action_to_json)

    @staticmethod
    def is_setup(action: Action) -> bool:
        return isinstance(action, NewGame)
