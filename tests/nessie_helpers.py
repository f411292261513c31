"""Helpers for Nessie Hunt scenario tests: set a position up by hand, then play on to a stage."""

from __future__ import annotations

from dataclasses import replace

from companion.games.nessie_hunt import (Advance, Coverage, EndTurn, EvidenceCard, LogisticsDealt, NewGame, PlayTrump,
                                         Step, Throw)
from companion.games.nessie_hunt.state import Piece
from companion.games.nessie_hunt.tracks import EXPEDITIONS

FOUR = NewGame(4, ("independent", "japanese", "british", "american"))


def at(state, **spaces):
    """The state with some leaders moved to given spaces."""
    positions = list(state.positions)
    for expedition, space in spaces.items():
        positions[EXPEDITIONS.index(expedition)] = space
    return replace(state, positions=tuple(positions))


def setx(state, name, **changes):
    """The state with one expedition's fields changed (cash is balanced against the bank)."""
    e = state.expedition(name)
    if "cash" in changes:
        state = replace(state, bank=state.bank - (changes["cash"] - e.cash))
    return state.with_expedition(e, **changes)


def give(state, name, *equipment, round=0, hex=None):
    """Pieces placed on the board for an expedition (a position set up by hand)."""
    e = state.expedition(name)
    pieces, n = list(e.pieces), state.next_piece
    for eq in equipment:
        pieces.append(Piece(n, eq, round, hex if eq == "cage" else None))
        n += 1
    return replace(state.with_expedition(e, pieces=tuple(pieces)), next_piece=n)


def index_of(track, predicate):
    return next(s.index for s in track.spaces if predicate(s))


def default_action(game, s):
    """A dull but legal move: throw 1, unknown card, nothing covered, first card value, end turn, Next."""
    step = s.step
    if step in (Step.THROW, Step.LOGISTICS_THROW, Step.TRUMP_DIE_OFF):
        return Throw(1)
    if step is Step.LOGISTICS:
        return LogisticsDealt(None)
    if step is Step.COVERAGE:
        return Coverage(())
    if step in (Step.DRAW, Step.CARD_EVIDENCE):
        return EvidenceCard(game.legal_actions(s)[0]["values"][0])
    if step is Step.PURCHASE:
        return EndTurn()
    if step is Step.TRUMP_PLAY:
        return PlayTrump(game.legal_actions(s)[0]["symbols"][0])
    return Advance()


def play_until(game, s, done, limit=500):
    for _ in range(limit):
        if done(s):
            return s
        s = game.apply(s, default_action(game, s))
    raise AssertionError(f"never reached the wanted position; stuck at {game.prompt(s)}")


def to_stage(game, s, stage, step=None):
    return play_until(game, s, lambda x: x.stage == stage and (step is None or x.step is step))


def stage_two_at(game, box, s, sector, column, row):
    """Leaders placed one short of spaces hiding the given symbols, then stage one played with 1s."""
    want = {"american": sector, "japanese": column, "british": row}
    spaces = {e: index_of(box.tracks[e], lambda sp, sym=sym: sp.symbol == sym and sp.index > 1) - 1
              for e, sym in want.items()}
    s = at(s, **spaces)
    s = play_until(game, s, lambda x: x.stage == 2)
    assert s.monster.surface == sector + column + row, s.monster
    return s


def random_action(game, s, rng):
    """Any legal move, chosen at random from what the rules list (and sometimes an odd but legal one)."""
    from companion.games.nessie_hunt import Buy, ClaimTrump, RepayLoan, Return

    legal = game.legal_actions(s)
    a = rng.choice(legal)
    t = a["type"]
    if t == "throw":
        return Throw(rng.randint(1, 6), rng.choice(["screen", "camera", "gpio", "serial"]))
    if t == "logistics-dealt":
        return LogisticsDealt(rng.choice(a["cards"] + [None]))
    if t == "evidence-card":
        return EvidenceCard(rng.choice(a["values"]))
    if t == "coverage":
        return Coverage(tuple((p["id"], m) for p in a["pieces"] for m in p["can_see"] if rng.random() < 0.3))
    if t == "buy":
        ok = [o for o in a["options"] if o["ok"]]
        if ok and rng.random() < 0.8:
            o = rng.choice(ok)
            return Buy(o["equipment"], rng.choice(game.box.loch.hexes).address if o["needs_hex"] else None)
        return EndTurn()
    if t == "return":
        ok = [p for p in a["pieces"] if p["ok"]]
        return Return(rng.choice(ok)["piece"]) if ok and rng.random() < 0.3 else EndTurn()
    if t == "repay-loan":
        return RepayLoan(rng.randint(1, a["max"]))
    if t == "claim-trump":
        return ClaimTrump(a["expedition"])
    if t == "play-trump":
        return PlayTrump(rng.choice(a["symbols"]))
    if t == "end-turn":
        return EndTurn()
    return Advance()


SETUPS = [
    FOUR,
    NewGame(5, FOUR.expeditions, "fifth-player", target=600),
    NewGame(3, ("japanese", "british", "american"), "american"),
    NewGame(2, ("japanese", "american"), "japanese"),
    NewGame(1, ("british",)),
    NewGame(4, FOUR.expeditions, variant="introductory"),
    NewGame(3, ("japanese", "british", "american"), variant="junior"),
    NewGame(4, FOUR.expeditions, rounds=8, win_rule="exceed", cards_per_piece="per-piece"),
]
