"""LOGISTICS cards: each card's effect, from the box profile's small declarative vocabulary. Pure."""

from __future__ import annotations


from companion.errors import IllegalAction

from . import economy
from .economy import title
from .state import replace, NessieState, Step


def held_anywhere(s: NessieState) -> set[str]:
    """Cards kept by an expedition (trumps, missed-turn cards): not in the pack, so not drawable."""
    return {c for e in s.expeditions if e for c in e.held}


def apply_card(game, s: NessieState, name: str, card_id: str) -> NessieState:
    """"take, and immediately act upon, a LOGISTICS card"."""
    card = game.box.card(card_id)
    if card is None:
        raise IllegalAction(f"there is no LOGISTICS card {card_id!r} in this box's deck", "Stage One, step 3")
    if card_id in held_anywhere(s):
        raise IllegalAction(f"card {card_id} is held by an expedition, not in the pack", "Stage One, step 3")
    kind = card.kind
    e = s.expedition(name)
    notes = [f"{title(name)} draws {card_id}: {card.text}"]
    v = game.variant(s)
    if kind == "receive":
        s = economy.move_money(s, e, card.get("amount"))
    elif kind == "pay":
        s, more = economy.charge(s, name, card.get("amount"), card_id)
        notes += more
    elif kind == "pay_per_piece":
        s, more = economy.charge(s, name, card.get("amount") * len(e.pieces), card_id)
        notes += more
    elif kind == "miss_turns":
        if v.missed_turns:
            s = s.with_expedition(e, missing_turns=card.get("turns"), held=e.held + (card_id,))
        else:
            notes.append("No turns are missed in this game (introductory rules).")
    elif kind == "trump":
        s = s.with_expedition(e, held=e.held + (card_id,))
    elif kind == "bank_loan":
        s = economy.move_money(s, e, card.get("amount"))
        e = s.expedition(name)
        from .state import Loan

        loan = Loan("bank", card.get("repay"), s.round + card.get("rounds"), card.get("amount"))
        s = s.with_expedition(e, loans=e.loans + (loan,))
    elif kind == "gamble":
        return replace(s, step=Step.LOGISTICS_THROW, pending_card=card_id, report=s.report + tuple(notes))
    elif kind == "lose_equipment":
        pieces = [p for p in e.pieces if p.equipment == card.get("equipment")]
        if pieces:
            s = economy.take_back(s, name, pieces[-1].id)
            notes.append(f"{title(name)} returns piece {pieces[-1].id} ({card.get('equipment').replace('_', ' ')}), no refund.")
    elif kind == "evidence":
        s = replace(s, report=s.report + tuple(notes))
        return game._card_evidence(s, name, card.get("pack"), card_id)
    return game._next_token(replace(s, report=s.report + tuple(notes)))


def settle_gamble(game, s: NessieState, value: int) -> tuple[NessieState, list[str]]:
    card = game.box.card(s.pending_card)
    name = s.seating.tokens[s.turn]
    amount = card.get("win") if value in card.get("win_on") else card.get("lose")
    if amount >= 0:
        return economy.move_money(s, s.expedition(name), amount), [f"{title(name)} throws {value}: receives £{amount}."]
    s, more = economy.charge(s, name, -amount, s.pending_card)
    return s, [f"{title(name)} throws {value}: pays £{-amount}."] + more
