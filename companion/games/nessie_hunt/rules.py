"""Nessie Hunt rules: actions in, state out. Pure: no I/O, no clock, no randomness.

Stages one and two of the basic game are played for real: every token the monster's position
needs is thrown for in the rulebook's order, leaders move anticlockwise, a star asks for a
LOGISTICS card, and the surface and submerged monsters are placed. Stages three to nine are
settled at the table until the rules issue brings them into the companion; Next then starts the
next round.

    >>> from companion.box_profiles import load_box
    >>> game = NessieHunt(load_box())
    >>> s = game.start(NewGame(4, ("independent", "japanese", "british", "american"), "independent"))
    >>> game.prompt(s)
    'Stage one, round 1. INDEPENDENT: throw the die.'
"""

from __future__ import annotations

from dataclasses import replace

from companion.errors import IllegalAction

from .actions import Action, Advance, LogisticsDealt, NewGame, Throw, action_from_json, action_to_json
from .box import BoxProfile
from .state import UNDERWATER_EQUIPMENT, LastThrow, Monster, NessieState, Seating, Step
from .tracks import EXPEDITIONS

NATIONAL = ("japanese", "british", "american")  # the three tokens that locate the monster
VARIANTS = ("basic",)
RULE_ORDER = "INDEPENDENT always plays first in each stage/step with the others following in a clockwise order"


def _title(expedition: str) -> str:
    return expedition.upper()


class NessieHunt:
    """The Nessie Hunt rules for one box profile (the board the tracks and loch come from)."""

    id = "nessie-hunt"
    name = "Nessie Hunt"
    rulebook = "000_5221d2090e374035.txt"

    def __init__(self, box: BoxProfile):
        self.box = box
        self._index = {e: i for i, e in enumerate(EXPEDITIONS)}
        self._reveals = {t.reveals: t.expedition for t in box.tracks.values()}

    # -- setup ---------------------------------------------------------------------------------

    def seating(self, action: NewGame) -> Seating:
        """Check a NewGame against the rulebook's player counts and derive who throws for what."""
        n, chosen, sponsor = action.players, tuple(action.expeditions), action.sponsor
        if len(set(chosen)) != len(chosen):
            raise IllegalAction("each expedition can be chosen once", "Rules for Four Players, b")
        expeditions = tuple(e for e in EXPEDITIONS if e in chosen)  # seating order
        if action.variant not in VARIANTS:
            raise IllegalAction(f"variant {action.variant!r} is not available yet; one of {', '.join(VARIANTS)}")
        if n in (4, 5):
            if set(expeditions) != set(EXPEDITIONS):
                raise IllegalAction(f"with {n} players all four expeditions play", "Rules for Four Players")
            want = "independent" if n == 4 else "fifth-player"
            if sponsor != want:
                rule = "Rules for Four Players, a" if n == 4 else "Rules for Five Players"
                raise IllegalAction(f"with {n} players the Sponsor is {want}, not {sponsor!r}", rule)
            return Seating(n, expeditions, sponsor, action.variant, action.target, EXPEDITIONS, EXPEDITIONS)
        if n not in (1, 2, 3):
            raise IllegalAction(f"Nessie Hunt is for 1 (solitaire) to 5 players, not {n}")
        if "independent" in expeditions:
            rule = {1: "Nessie Hunt Solitaire", 2: "Rules for Two Players", 3: "Rules for Three Players"}[n]
            raise IllegalAction(f"with {n} player(s) INDEPENDENT takes no part; choose from American, British and Japanese", rule)
        if len(expeditions) != n:
            raise IllegalAction(f"{n} player(s) need {n} expedition(s), got {len(expeditions)}")
        if sponsor not in expeditions:
            raise IllegalAction(f"the Sponsor must be one of the players ({', '.join(expeditions)}), not {sponsor!r}",
                                "Rules for Three Players" if n == 3 else "Rules for Two Players" if n == 2 else None)
        # INDEPENDENT's leader takes no part; the three national tokens always move (stage two needs them).
        tokens = NATIONAL_IN_SEAT_ORDER
        throwers = tuple(t if t in expeditions else sponsor for t in tokens)
        return Seating(n, expeditions, sponsor, action.variant, action.target, tokens, throwers)

    def start(self, action: NewGame) -> NessieState:
        seating = self.seating(action)
        # Setup f: three eye-witness transparencies for each expedition that plays.
        equipment = tuple(("eye_witness",) * 3 if e in seating.expeditions else () for e in EXPEDITIONS)
        return NessieState(
            seating=seating, round=1, stage=1, step=Step.THROW, turn=0,
            positions=(0, 0, 0, 0), equipment=equipment, missing_turns=(0, 0, 0, 0),
            last_throw=None, monster=None, logistics_taken=0,
        )

    # -- the fold ------------------------------------------------------------------------------

    def apply(self, state: NessieState | None, action: Action) -> NessieState:
        """The state after ``action``, or :class:`IllegalAction` saying which rule forbids it."""
        if isinstance(action, NewGame):
            if state is not None:
                raise IllegalAction("a game is already under way; start a new game instead")
            return self.start(action)
        if state is None:
            raise IllegalAction("no game yet: set one up first")
        if isinstance(action, Throw):
            return self._throw(state, action)
        if isinstance(action, LogisticsDealt):
            return self._logistics_dealt(state, action)
        if isinstance(action, Advance):
            return self._advance(state)
        raise IllegalAction(f"{type(action).__name__} is not a Nessie Hunt action")

    def replay(self, actions) -> NessieState | None:
        state = None
        for action in actions:
            state = self.apply(state, action)
        return state

    def _throw(self, s: NessieState, action: Throw) -> NessieState:
        token = s.token_to_throw
        if token is None:
            raise IllegalAction(f"no throw is due now: {self.prompt(s)}", "Stage one")
        i = self._index[token]
        track = self.box.tracks[token]
        old = s.positions[i]
        new = track.advance(old, action.value)
        positions = s.positions[:i] + (new,) + s.positions[i + 1:]
        thrown = LastThrow(token, action.value, action.source, old, new)
        # Step 3: a star asks for a LOGISTICS card, but not while missing a turn, and only for a
        # token its own expedition plays (two-player dummy; solitaire's other tokens).
        if track.spaces[new].star and s.seating.takes_logistics(token) and s.missing_turns[i] == 0:
            return replace(s, positions=positions, last_throw=thrown, step=Step.LOGISTICS)
        return self._next_turn(replace(s, positions=positions, last_throw=thrown))

    def _logistics_dealt(self, s: NessieState, action: LogisticsDealt) -> NessieState:
        if s.step is not Step.LOGISTICS:
            raise IllegalAction(f"no LOGISTICS card is being dealt with: {self.prompt(s)}", "Stage one, step 3")
        return self._next_turn(replace(s, logistics_taken=s.logistics_taken + 1))

    def _next_turn(self, s: NessieState) -> NessieState:
        turn = s.turn + 1
        if turn < len(s.seating.tokens):
            return replace(s, turn=turn, step=Step.THROW)
        return replace(s, turn=0, stage=2, step=Step.MONSTER, monster=self.locate_monster(s))

    def _advance(self, s: NessieState) -> NessieState:
        if s.step is not Step.MONSTER:
            raise IllegalAction(f"not yet: {self.prompt(s)}", RULE_ORDER)
        return replace(s, round=s.round + 1, stage=1, step=Step.THROW, turn=0, monster=None,
                       history=s.history + (s.monster,))

    # -- stage two -----------------------------------------------------------------------------

    def locate_monster(self, s: NessieState) -> Monster:
        """Stage two, steps 1-4: read the address under the three tokens and place the monsters."""
        in_play = any(eq in UNDERWATER_EQUIPMENT for exp in s.equipment for eq in exp)
        symbols = {}
        for part in ("sector", "column", "row"):
            expedition = self._reveals[part]
            space = self.box.tracks[expedition].spaces[s.position(expedition)]
            if space.is_start and expedition != self._reveals["sector"]:
                return Monster(None, f"the {_title(expedition)} token is on its starting space", (), in_play)
            symbols[part] = (expedition, space.symbol)
        for part, name in (("sector", "letter"), ("column", "number"), ("row", "small letter")):
            expedition, symbol = symbols[part]
            if symbol is None:
                return Monster(None, f"no {name} under the {_title(expedition)} token", (), in_play)
        address = symbols["sector"][1] + symbols["column"][1] + symbols["row"][1]
        if address not in self.box.loch:
            return Monster(None, f"{address} is not on the loch of this board", (), in_play)
        submerged = tuple(self.box.loch.submerged(address).as_dict().items())
        return Monster(address, None, submerged, in_play)

    # -- what the table is told ----------------------------------------------------------------

    def prompt(self, s: NessieState | None) -> str:
        if s is None:
            return "Set up a game: choose the players and their expeditions."
        if s.step is Step.THROW:
            token = s.seating.tokens[s.turn]
            by = s.seating.thrower(token)
            missing = " (even though missing a turn)" if s.is_missing_turn(token) else ""
            if by == token:
                return f"Stage one, round {s.round}. {_title(token)}: throw the die{missing}."
            return f"Stage one, round {s.round}. {_title(by)}: throw the die for the {_title(token)} token."
        if s.step is Step.LOGISTICS:
            token = s.seating.tokens[s.turn]
            return (f"Stage one, step 3. {_title(token)} landed on a '*': take a LOGISTICS card, read it aloud "
                    "and act on it. The next expedition waits until it has been dealt with.")
        m = s.monster
        if m is None or m.surface is None:
            why = m.reason if m else "no monster"
            return f"Stage two. No monster this round: {why}. Next: round {s.round + 1}."
        text = f"Stage two. The Sponsor places the Head and Neck on {m.surface}."
        placed = m.placed_submerged
        if placed:
            text += " Submerged monsters on " + ", ".join(placed.values()) + "."
        else:
            text += " No underwater equipment is in use, so no submerged monsters."
        return text + f" Next: round {s.round + 1}."

    # -- the Game protocol (companion.games) -----------------------------------------------------

    parse_action = staticmethod(action_from_json)
    action_to_json = staticmethod(action_to_json)

    @staticmethod
    def is_setup(action: Action) -> bool:
        return isinstance(action, NewGame)

    def view(self, s: NessieState | None) -> dict:
        from .view import table_view

        return table_view(self, s)

    def legal_actions(self, s: NessieState | None) -> list[dict]:
        """What may be done now, as the dashboard draws it (never an illegal move)."""
        if s is None:
            return [{"type": "new-game"}]
        if s.step is Step.THROW:
            token = s.seating.tokens[s.turn]
            return [{"type": "throw", "token": token, "by": s.seating.thrower(token), "values": [1, 2, 3, 4, 5, 6]}]
        if s.step is Step.LOGISTICS:
            return [{"type": "logistics-dealt", "by": s.seating.tokens[s.turn]}]
        return [{"type": "advance", "label": f"Next: round {s.round + 1}"}]


NATIONAL_IN_SEAT_ORDER = tuple(e for e in EXPEDITIONS if e in NATIONAL)
