"""Nessie Hunt rules: actions in, state out. Pure: no I/O, no clock, no randomness.

A round is the rulebook's nine stages in strict order (another order for the introductory game,
see ``variants.py``). Stages that are the Sponsor's arithmetic (four: the climax check; five:
income; eight: missed turns and loans falling due) run by themselves; the others wait for the
table: throws, LOGISTICS cards, coverage, evidence points, purchases, Next.

    >>> from companion.box_profiles import load_box
    >>> game = NessieHunt(load_box())
    >>> s = game.start(NewGame(4, ("independent", "japanese", "british", "american")))
    >>> game.prompt(s)
    'Stage one, round 1. INDEPENDENT: throw the die.'
"""

from __future__ import annotations

from collections import Counter

from companion.errors import IllegalAction

from . import economy
from .actions import (Action, Advance, Buy, ClaimTrump, Coverage, EndTurn, EvidenceCard, LogisticsDealt, NewGame,
                      PlayTrump, RepayLoan, Return, Throw, action_from_json, action_to_json)
from .box import BoxProfile
from .economy import title
from .state import (replace, UNDERWATER_EQUIPMENT, Card, Expedition, LastThrow, Monster, NessieState, Outcome, Piece, Seating,
                    Step)
from .tracks import EXPEDITIONS
from .variants import VARIANTS, Variant

NATIONAL = ("japanese", "british", "american")  # the three tokens that locate the monster
NATIONAL_IN_SEAT_ORDER = tuple(e for e in EXPEDITIONS if e in NATIONAL)
RULE_ORDER = "INDEPENDENT always plays first in each stage/step with the others following in a clockwise order"
PARTS = {"sector": "capital letter", "column": "number", "row": "small letter"}
ROUND_CAP = 500  # a game that reaches this many rounds ends (no winner), so every game ends


class NessieHunt:
    """The Nessie Hunt rules for one box profile (the board, equipment and card decks)."""

    id = "nessie-hunt"
    name = "Nessie Hunt"
    rulebook = "000_5221d2090e374035.txt"

    def __init__(self, box: BoxProfile):
        self.box = box
        self._index = {e: i for i, e in enumerate(EXPEDITIONS)}
        self._reveals = {t.reveals: t.expedition for t in box.tracks.values()}

    def variant(self, s: NessieState) -> Variant:
        return VARIANTS[s.seating.variant]

    # -- setup ---------------------------------------------------------------------------------

    def seating(self, action: NewGame) -> Seating:
        """Check a NewGame against the rulebook's player counts and derive who throws for what."""
        n, chosen, sponsor = action.players, tuple(action.expeditions), action.sponsor
        if len(set(chosen)) != len(chosen):
            raise IllegalAction("each expedition can be chosen once", "Rules for Four Players, b")
        expeditions = tuple(e for e in EXPEDITIONS if e in chosen)  # seating order
        variant = VARIANTS.get(action.variant)
        if variant is None:
            raise IllegalAction(f"variant {action.variant!r} is not available; one of {', '.join(VARIANTS)}")
        target = action.target or variant.target
        extra = dict(rounds=action.rounds, win_rule=action.win_rule, cards_per_piece=action.cards_per_piece)
        if n in (4, 5):
            if set(expeditions) != set(EXPEDITIONS):
                raise IllegalAction(f"with {n} players all four expeditions play", "Rules for Four Players")
            want = "independent" if n == 4 else "fifth-player"
            if sponsor not in (want, "companion"):
                rule = "Rules for Four Players, a" if n == 4 else "Rules for Five Players"
                raise IllegalAction(f"with {n} players the Sponsor is {want} (or the companion), not {sponsor!r}", rule)
            return Seating(n, expeditions, sponsor, variant.name, target, EXPEDITIONS, EXPEDITIONS, **extra)
        if n not in (1, 2, 3):
            raise IllegalAction(f"Nessie Hunt is for 1 (solitaire) to 5 players, not {n}")
        if "independent" in expeditions:
            rule = {1: "Nessie Hunt Solitaire", 2: "Rules for Two Players", 3: "Rules for Three Players"}[n]
            raise IllegalAction(f"with {n} player(s) INDEPENDENT takes no part; choose from American, British and Japanese", rule)
        if len(expeditions) != n:
            raise IllegalAction(f"{n} player(s) need {n} expedition(s), got {len(expeditions)}")
        if sponsor not in expeditions and sponsor != "companion":
            raise IllegalAction(f"the Sponsor must be one of the players ({', '.join(expeditions)}) or the companion, "
                                f"not {sponsor!r}", "Rules for Three Players" if n == 3 else "Rules for Two Players")
        # INDEPENDENT's leader takes no part; the three national tokens always move (stage two needs them).
        # A token nobody plays is thrown by the Sponsor-player (two players: "the other player acts as
        # banker and throws the dice"); with the companion as Sponsor, by the last player in seating order.
        banker = sponsor if sponsor in expeditions else expeditions[-1]
        throwers = tuple(t if t in expeditions else banker for t in NATIONAL_IN_SEAT_ORDER)
        return Seating(n, expeditions, sponsor, variant.name, target, NATIONAL_IN_SEAT_ORDER, throwers, **extra)

    def start(self, action: NewGame) -> NessieState:
        seating = self.seating(action)
        variant = VARIANTS[seating.variant]
        exps: list[Expedition | None] = []
        next_piece = 1
        for name in EXPEDITIONS:
            if name not in seating.expeditions:
                exps.append(None)
                continue
            # Setup f: "three eye-witness transparencies to each player"; the junior kit besides.
            kit = ("eye_witness",) * variant.eye_witnesses + variant.kit
            pieces = []
            for equipment in kit:
                pieces.append(Piece(next_piece, equipment, 0))
                next_piece += 1
            exps.append(Expedition(name, variant.start_cash, tuple(pieces), had_all_cameras=bool(variant.kit)))
        bank = -variant.start_cash * len(seating.expeditions)  # "The Sponsor issues £50 to each player"
        s = NessieState(
            seating=seating, round=1, stage=variant.order[0], step=Step.THROW, turn=0, positions=(0, 0, 0, 0),
            expeditions=tuple(exps), bank=bank, last_throw=None, monster=None, logistics_taken=0,
            next_piece=next_piece,
        )
        return self._enter(s, variant.order[0])

    # -- the fold ------------------------------------------------------------------------------

    def apply(self, state: NessieState | None, action: Action) -> NessieState:
        """The state after ``action``, or :class:`IllegalAction` saying which rule forbids it."""
        if isinstance(action, NewGame):
            if state is not None:
                raise IllegalAction("a game is already under way; start a new game instead")
            return self.start(action)
        if state is None:
            raise IllegalAction("no game yet: set one up first")
        if state.step is Step.OVER:
            raise IllegalAction(f"the hunt is over: {state.outcome.reason}", "Climax of the Hunt")
        s = replace(state, report=()) if state.report else state
        handler = self._handlers.get(type(action))
        if handler is None:
            raise IllegalAction(f"{type(action).__name__} is not a Nessie Hunt action")
        return handler(self, s, action)

    def replay(self, actions) -> NessieState | None:
        state = None
        for action in actions:
            state = self.apply(state, action)
        return state

    def _wrong_step(self, s: NessieState, what: str, rule: str = RULE_ORDER) -> IllegalAction:
        return IllegalAction(f"{what}: {self.prompt(s)}", rule)

    # -- stage sequencing ----------------------------------------------------------------------

    def _enter(self, s: NessieState, stage: int) -> NessieState:
        """Begin a stage: the Sponsor's own stages run at once, the others wait for the table."""
        s = replace(s, stage=stage, turn=0)
        v = self.variant(s)
        if stage == 1:
            return replace(s, step=Step.THROW)
        if stage == 2:
            return replace(s, step=Step.MONSTER, monster=self.locate_monster(s), trump=None)
        if stage == 3:
            return self._next_evidence(s, 0)
        if stage == 4:
            s = replace(s, history=s.history + (s.monster,) if s.monster else s.history, monster=None)
            return self._climax(s)
        if stage == 5:
            s, notes = economy.stage_five(s, self.box, v)
            return self._after(replace(s, report=s.report + tuple(notes)))
        if stage == 6:
            if not v.purchases or not s.playing:
                return self._after(s)
            return replace(s, step=Step.PURCHASE, turn=0, bought=False)
        if stage == 7:
            return replace(s, step=Step.TOTALS)
        if stage == 8:
            return self._after(self._stage_eight(s))
        if stage == 9:
            if any(self._trumps(s, name) for name in s.playing):
                return replace(s, step=Step.TRUMP, claims=(), die_off=())
            return self._after(s)
        raise AssertionError(stage)

    def _after(self, s: NessieState) -> NessieState:
        """Go on to the stage after the current one, or to the next round."""
        order = self.variant(s).order
        i = order.index(s.stage)
        if i + 1 < len(order):
            return self._enter(s, order[i + 1])
        return self._new_round(s)

    def _new_round(self, s: NessieState) -> NessieState:
        v = self.variant(s)
        notes = []
        if v.top_up:  # junior: "Any child with less than £100 after a round is given another £500."
            for name in s.playing:
                e = s.expedition(name)
                if e.cash < v.top_up_below:
                    s = economy.move_money(s, e, v.top_up)
                    notes.append(f"{title(name)} has less than £{v.top_up_below}: the Sponsor gives £{v.top_up}.")
        s = replace(s, round=s.round + 1, report=s.report + tuple(notes))
        if s.round > ROUND_CAP:
            return self._over(s, None, f"the hunt was called off after {ROUND_CAP} rounds")
        return self._enter(s, v.order[0])

    def _over(self, s: NessieState, winner: str | None, reason: str) -> NessieState:
        points = tuple((n, s.expedition(n).points) for n in s.seating.expeditions)
        return replace(s, step=Step.OVER, outcome=Outcome(winner, reason, points))

    # -- stage one -----------------------------------------------------------------------------

    def _throw(self, s: NessieState, action: Throw) -> NessieState:
        if s.step is Step.LOGISTICS_THROW:
            from .logistics import settle_gamble

            s, notes = settle_gamble(self, s, action.value)
            return self._next_token(replace(s, report=s.report + tuple(notes)))
        if s.step is Step.TRUMP_DIE_OFF:
            return self._die_off(s, action)
        token = s.token_to_throw
        if token is None:
            raise self._wrong_step(s, "no throw is due now", "Stage one")
        i = self._index[token]
        track = self.box.tracks[token]
        old = s.positions[i]
        new = track.advance(old, action.value)
        positions = s.positions[:i] + (new,) + s.positions[i + 1:]
        s = replace(s, positions=positions, last_throw=LastThrow(token, action.value, action.source, old, new))
        v = self.variant(s)
        if action.value in v.eyewitness_card_on and token in s.seating.expeditions and s.expedition(token).out is None:
            # Introductory rules: "EYEWITNESS EVIDENCE CARD taken and retained for a throw of 5 or 6."
            return self._card_evidence(s, token, "eye_witness", None)
        return self._maybe_logistics(s, token)

    def _star_due(self, s: NessieState, token: str) -> bool:
        """Step 3: a star asks for a LOGISTICS card, but "NO LOGISTICS CARD IS TAKEN IF YOU ARE ALREADY
        MISSING A TURN", and only for a token its own expedition plays (two players; solitaire)."""
        space = self.box.tracks[token].spaces[s.position(token)]
        e = s.expedition(token)
        return space.star and s.seating.takes_logistics(token) and e is not None and e.out is None and e.missing_turns == 0

    def _maybe_logistics(self, s: NessieState, token: str) -> NessieState:
        if self._star_due(s, token):
            return replace(s, step=Step.LOGISTICS)
        return self._next_token(s)

    def _logistics_dealt(self, s: NessieState, action: LogisticsDealt) -> NessieState:
        if s.step is not Step.LOGISTICS:
            raise self._wrong_step(s, "no LOGISTICS card is being dealt with", "Stage one, step 3")
        from .logistics import apply_card

        token = s.seating.tokens[s.turn]
        s = replace(s, logistics_taken=s.logistics_taken + 1)
        if action.card is None:  # a card the companion does not know: read and settled at the table
            return self._next_token(s)
        return apply_card(self, s, token, action.card)

    def _card_evidence(self, s: NessieState, name: str, pack: str, card: str | None) -> NessieState:
        e = s.expedition(name)
        if e.sponsor_debt:
            note = f"{title(name)} has an unpaid Sponsor loan and gets no evidence."
            s = replace(s, report=s.report + (note,))
            return self._maybe_logistics(s, name) if card is None else self._next_token(s)
        if not self.pack_left(s, pack):
            note = f"The {self.box.pack(pack).label} pack is empty: no card."
            s = replace(s, report=s.report + (note,))
            return self._maybe_logistics(s, name) if card is None else self._next_token(s)
        return replace(s, step=Step.CARD_EVIDENCE, pending_pack=pack, pending_card=card)

    def _next_token(self, s: NessieState) -> NessieState:
        turn = s.turn + 1
        if turn < len(s.seating.tokens):
            return replace(s, turn=turn, step=Step.THROW, pending_card=None, pending_pack=None)
        return self._after(replace(s, pending_card=None, pending_pack=None) if s.pending_card or s.pending_pack else s)

    # -- stage two -----------------------------------------------------------------------------

    def locate_monster(self, s: NessieState) -> Monster:
        """Stage two, steps 1-4: read the address under the three tokens and place the monsters."""
        in_play = any(p.equipment in UNDERWATER_EQUIPMENT for e in s.expeditions if e and e.out is None for p in e.pieces)
        trump_part = s.trump[2] if s.trump else None
        trump_note = None
        if s.trump:
            who, _card, part, symbol = s.trump
            trump_note = f"{title(who)} played a trump card: the {PARTS[part]} is {symbol}"
        symbols = {}
        for part in ("sector", "column", "row"):
            expedition = self._reveals[part]
            if part == trump_part:
                symbols[part] = (expedition, s.trump[3])
                continue
            space = self.box.tracks[expedition].spaces[s.position(expedition)]
            if space.is_start and part != "sector":
                return Monster(None, f"the {title(expedition)} token is on its starting space", (), in_play, trump_note)
            symbols[part] = (expedition, space.symbol)
        for part, name in (("sector", "letter"), ("column", "number"), ("row", "small letter")):
            expedition, symbol = symbols[part]
            if symbol is None:
                return Monster(None, f"no {name} under the {title(expedition)} token", (), in_play, trump_note)
        address = symbols["sector"][1] + symbols["column"][1] + symbols["row"][1]
        if address not in self.box.loch:
            return Monster(None, f"{address} is not on the loch of this board", (), in_play, trump_note)
        submerged = tuple(self.box.loch.submerged(address).as_dict().items())
        return Monster(address, None, submerged, in_play, trump_note)

    # -- stage three ---------------------------------------------------------------------------

    def evidence_turns(self, s: NessieState) -> tuple[str, ...]:
        return s.playing

    def _next_evidence(self, s: NessieState, start: int) -> NessieState:
        """The next expedition that takes part in stage three, or the next stage."""
        m = s.monster
        if m is None or m.surface is None:
            return self._after(s)
        names = self.evidence_turns(s)
        notes = []
        for i in range(start, len(names)):
            e = s.expedition(names[i])
            if e.missing_turns:
                notes.append(f"{title(e.name)} is missing a turn and takes no part in stage three.")
                continue
            if e.sponsor_debt:
                notes.append(f"{title(e.name)} has an unpaid Sponsor loan: no evidence until it is repaid.")
                continue
            return replace(s, step=Step.COVERAGE, turn=i, entitlement=(), report=s.report + tuple(notes))
        return self._after(replace(s, report=s.report + tuple(notes), entitlement=()))

    def _coverage(self, s: NessieState, action: Coverage) -> NessieState:
        if s.step is not Step.COVERAGE:
            raise self._wrong_step(s, "no coverage is being entered now", "Stage Three, step 1")
        name = self.evidence_turns(s)[s.turn]
        from .evidence import entitlement

        owed = entitlement(self, s, name, action.covers)
        s = replace(s, entitlement=owed, step=Step.DRAW)
        return self._next_card(s, name)

    def _next_card(self, s: NessieState, name: str) -> NessieState:
        """Skip entitlements whose pack is empty; when none is left, the next expedition's turn."""
        owed = s.entitlement
        notes = []
        while owed and not self.pack_left(s, owed[0][2]):
            notes.append(f"The {self.box.pack(owed[0][2]).label} pack is empty: no card for piece {owed[0][0]}.")
            owed = owed[1:]
        s = replace(s, entitlement=owed, report=s.report + tuple(notes))
        if owed:
            return s
        return self._next_evidence(s, s.turn + 1)

    def _evidence_card(self, s: NessieState, action: EvidenceCard) -> NessieState:
        if s.step is Step.CARD_EVIDENCE:
            name = s.seating.tokens[s.turn]
            pack = s.pending_pack
        elif s.step is Step.DRAW:
            name = self.evidence_turns(s)[s.turn]
            pack = s.entitlement[0][2]
        else:
            raise self._wrong_step(s, "no evidence card is being drawn now", "Stage Three, step 2")
        left = self.pack_left(s, pack)
        if left[action.points] <= 0:
            values = ", ".join(str(v) for v in sorted(left))
            raise IllegalAction(f"no card worth {action.points} is left in the {self.box.pack(pack).label} pack "
                                f"(left: {values})", "Stage Three, step 2: take the card from the top of the appropriate pack")
        e = s.expedition(name)
        s = s.with_expedition(e, cards=e.cards + (Card(pack, action.points, s.round),))
        if s.step is Step.CARD_EVIDENCE:
            from_throw = s.pending_card is None
            s = replace(s, pending_pack=None, pending_card=None)
            return self._maybe_logistics(s, name) if from_throw else self._next_token(s)
        return self._next_card(replace(s, entitlement=s.entitlement[1:]), name)

    def pack_left(self, s: NessieState, pack: str) -> Counter:
        """The cards still in a pack: its values less every card the expeditions keep."""
        left = Counter(self.box.pack(pack).values)
        for e in s.expeditions:
            if e:
                for c in e.cards:
                    if c.pack == pack:
                        left[c.points] -= 1
        return +left

    # -- stage four ----------------------------------------------------------------------------

    def _climax(self, s: NessieState) -> NessieState:
        """"If one or more players have over 750 points at this stage the game is over ... the highest
        pointed player wins. If points are equal, the player with the highest pointed card wins. If there
        is still no winner then an additional round is played ... You cannot win while missing a turn."
        """
        seat = s.seating
        target = seat.target
        reached = (lambda p: p >= target) if seat.win_rule == "reach" else (lambda p: p > target)
        able = [s.expedition(n) for n in s.playing if not s.expedition(n).missing_turns]
        if not s.playing:
            return self._over(s, None, "every expedition is out of the game")
        candidates = [e for e in able if reached(e.points)]
        last = seat.rounds and s.round >= seat.rounds
        if not candidates and last:
            candidates = able  # a shortened game of fixed rounds: the highest total wins
        if not candidates:
            return self._after(s)
        top = max(e.points for e in candidates)
        best = [e for e in candidates if e.points == top]
        if len(best) > 1:
            card = max(e.best_card for e in best)
            best = [e for e in best if e.best_card == card]
        if len(best) > 1:
            note = ("Points and highest card are equal between " + " and ".join(title(e.name) for e in best)
                    + ": an additional round is played to decide the matter.")
            return self._after(replace(s, report=s.report + (note,)))
        w = best[0]
        rule = "reached" if seat.win_rule == "reach" else "passed"
        reason = (f"{title(w.name)} {rule} {target} points with {w.points}" if reached(w.points)
                  else f"{title(w.name)} leads after the last of {seat.rounds} rounds with {w.points}")
        if seat.players == 1:
            reason += f": the solitaire score is {s.round} rounds"
        return self._over(s, w.name, reason)

    # -- stage six -----------------------------------------------------------------------------

    def purchaser(self, s: NessieState) -> str:
        return s.playing[s.turn]

    def _need_purchase_step(self, s: NessieState, what: str) -> str:
        if s.step is not Step.PURCHASE:
            raise self._wrong_step(s, f"{what} only in stage six", "Stage Six")
        return self.purchaser(s)

    def _buy(self, s: NessieState, action: Buy) -> NessieState:
        name = self._need_purchase_step(s, "equipment is bought")
        why = economy.why_not_buy(s, self.box, self.variant(s), name, action.equipment, action.hex)
        if why:
            raise IllegalAction(*why)
        return economy.buy(s, self.box, name, action.equipment, action.hex)

    def _return(self, s: NessieState, action: Return) -> NessieState:
        name = self._need_purchase_step(s, "equipment is returned")
        why = economy.why_not_return(s, self.box, name, action.piece)
        if why:
            raise IllegalAction(*why)
        return economy.take_back(s, name, action.piece)

    def _repay(self, s: NessieState, action: RepayLoan) -> NessieState:
        name = self._need_purchase_step(s, "a loan is repaid")
        why = economy.why_not_repay(s, name, action.amount)
        if why:
            raise IllegalAction(why, "Special Rules on Borrowing")
        return economy.repay(s, name, action.amount)

    def _end_turn(self, s: NessieState, action: EndTurn) -> NessieState:
        self._need_purchase_step(s, "a turn is ended")
        turn = s.turn + 1
        if turn < len(s.playing):
            return replace(s, turn=turn, bought=False)
        return self._after(replace(s, bought=False))

    # -- stages seven to nine ------------------------------------------------------------------

    def _stage_eight(self, s: NessieState) -> NessieState:
        """Missed turns end ("a two-turn card is kept until the second time stage eight is reached") and
        Sponsor loans past their four rounds put the expedition out of the game."""
        notes = []
        for name in s.playing:
            e = s.expedition(name)
            if e.missing_turns:
                left = e.missing_turns - 1
                held = e.held
                if left == 0:
                    held = tuple(c for c in e.held if not (self.box.card(c) and self.box.card(c).kind == "miss_turns"))
                    notes.append(f"{title(name)} has missed its turn and returns the card to the pack.")
                s = s.with_expedition(e, missing_turns=left, held=held)
            e = s.expedition(name)
            overdue = [l for l in e.loans if l.kind == "sponsor" and l.due_round <= s.round]
            if overdue:
                s = s.with_expedition(e, out=f"did not repay the Sponsor loan within four rounds (round {overdue[0].due_round})",
                                      pieces=(), held=())
                notes.append(f"{title(name)} has not repaid the Sponsor loan within four rounds and is out of the game.")
        return replace(s, report=s.report + tuple(notes))

    def _trumps(self, s: NessieState, name: str) -> tuple[str, ...]:
        e = s.expedition(name)
        return tuple(c for c in e.held if self.box.card(c) and self.box.card(c).kind == "trump") if e else ()

    def _claim(self, s: NessieState, action: ClaimTrump) -> NessieState:
        if s.step is not Step.TRUMP:
            raise self._wrong_step(s, "trump cards are played only in stage nine", "Stage Nine")
        name = action.expedition
        if name not in s.playing or not self._trumps(s, name):
            raise IllegalAction(f"{title(name)} holds no trump card", "Stage Nine")
        if name in s.claims:
            raise IllegalAction(f"{title(name)} has already asked to play", "Stage Nine")
        return replace(s, claims=s.claims + (name,))

    def _die_off(self, s: NessieState, action: Throw) -> NessieState:
        """"ONLY ONE PLAYER MAY PLAY A TRUMP CARD IN ANY ROUND. IF NECESSARY THROW DICE TO CHOOSE WHO"."""
        thrower = s.claims[len(s.die_off)]
        die_off = s.die_off + ((thrower, action.value),)
        if len(die_off) < len(s.claims):
            return replace(s, die_off=die_off)
        top = max(v for _, v in die_off)
        best = tuple(n for n, v in die_off if v == top)
        if len(best) > 1:
            note = "A tie between " + " and ".join(title(n) for n in best) + ": they throw again."
            return replace(s, claims=best, die_off=(), report=s.report + (note,))
        return replace(s, step=Step.TRUMP_PLAY, claims=best, die_off=die_off)

    def _play_trump(self, s: NessieState, action: PlayTrump) -> NessieState:
        if s.step is not Step.TRUMP_PLAY:
            raise self._wrong_step(s, "no trump card is being played now", "Stage Nine")
        name = s.claims[0]
        card = self._trumps(s, name)[0]
        part = self.box.card(card).get("part")
        grid = self.box.loch.grid
        allowed = {"sector": grid.sectors, "column": [str(n) for n in range(1, grid.columns_per_sector + 1)],
                   "row": grid.rows}[part]
        if action.symbol not in allowed:
            raise IllegalAction(f"the {PARTS[part]} must be one of {' '.join(allowed)}, not {action.symbol!r}",
                                "Stage Nine: the card's effect")
        e = s.expedition(name)
        s = s.with_expedition(e, held=tuple(c for c in e.held if c != card))
        s = replace(s, trump=(name, card, part, action.symbol), claims=(), die_off=())
        return self._after(s)

    def _advance(self, s: NessieState, action: Advance) -> NessieState:
        if s.step is Step.MONSTER:
            return self._after(s)
        if s.step is Step.TOTALS:
            return self._after(s)
        if s.step is Step.TRUMP:
            if not s.claims:
                return self._after(s)
            if len(s.claims) == 1:
                return replace(s, step=Step.TRUMP_PLAY)
            return replace(s, step=Step.TRUMP_DIE_OFF, die_off=())
        raise self._wrong_step(s, "not yet")

    _handlers = {
        Throw: _throw, LogisticsDealt: _logistics_dealt, Coverage: _coverage, EvidenceCard: _evidence_card,
        Buy: _buy, Return: _return, RepayLoan: _repay, EndTurn: _end_turn, ClaimTrump: _claim,
        PlayTrump: _play_trump, Advance: _advance,
    }

    # -- the Game protocol (companion.games) -----------------------------------------------------

    parse_action = staticmethod(action_from_json)
    action_to_json = staticmethod(action_to_json)

    @staticmethod
    def is_setup(action: Action) -> bool:
        return isinstance(action, NewGame)

    def view(self, s: NessieState | None) -> dict:
        from .view import table_view

        return table_view(self, s)

    def prompt(self, s: NessieState | None) -> str:
        from .prompts import prompt

        return prompt(self, s)

    def legal_actions(self, s: NessieState | None) -> list[dict]:
        from .prompts import legal_actions

        return legal_actions(self, s)
