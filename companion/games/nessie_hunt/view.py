"""What the table is told now: a JSON-ready picture of the state for the dashboard. Pure."""

from __future__ import annotations

from .economy import running_cost
from .state import NessieState, Step
from .tracks import EXPEDITIONS

COLOURS = {"independent": "green", "japanese": "yellow", "british": "red", "american": "blue"}


def table_view(game, s: NessieState | None) -> dict:
    if s is None:
        return {"game": game.id, "started": False, "prompt": game.prompt(None), "legal": game.legal_actions(None)}
    leaders = []
    reveal = s.step is Step.MONSTER  # the tokens are lifted in stage two, so their symbols show
    for name in EXPEDITIONS:
        track = game.box.tracks[name]
        pos = s.position(name)
        space = track.spaces[pos]
        leaders.append({
            "expedition": name,
            "colour": COLOURS[name],
            "moving": name in s.seating.tokens,
            "played_by": s.seating.thrower(name) if name in s.seating.tokens else None,
            "human": name in s.seating.expeditions,
            "space": pos,
            "at_mm": list(space.at),
            "symbol": space.symbol if reveal else None,
            "missing_turns": s.missing_turns[EXPEDITIONS.index(name)],
            "equipment": list(s.equipment_of(name)),
        })
    expeditions = []
    for name in s.seating.expeditions:
        e = s.expedition(name)
        expeditions.append({
            "name": name,
            "cash": e.cash,
            "points": e.points,
            "best_card": e.best_card,
            "running_cost": running_cost(game.box, e),
            "pieces": [{"id": p.id, "equipment": p.equipment, "round": p.bought_round, "hex": p.hex} for p in e.pieces],
            "cards": [{"pack": c.pack, "points": c.points, "round": c.round} for c in e.cards],
            "missing_turns": e.missing_turns,
            "loans": [{"kind": l.kind, "owed": l.owed, "due_round": l.due_round, "borrowed": l.borrowed} for l in e.loans],
            "held": list(e.held),
            "out": e.out,
        })
    monster = None
    m = s.monster
    if m is not None:
        monster = {"surface": m.surface, "reason": m.reason, "submerged": dict(m.submerged),
                   "submerged_in_play": m.submerged_in_play, "trump": m.trump}
    last = None
    if s.last_throw is not None:
        t = s.last_throw
        last = {"token": t.token, "value": t.value, "source": t.source, "from": t.from_space, "to": t.to_space}
    turn = None
    if s.step in (Step.THROW, Step.LOGISTICS, Step.LOGISTICS_THROW, Step.CARD_EVIDENCE):
        turn = s.seating.tokens[s.turn]
    elif s.step in (Step.COVERAGE, Step.DRAW):
        turn = game.evidence_turns(s)[s.turn]
    elif s.step is Step.PURCHASE:
        turn = game.purchaser(s)
    outcome = None
    if s.outcome:
        # "Total up the points on the actual cards in case a mistake has been made on the tally sheet."
        recount = {n: {"cards": [c.points for c in s.expedition(n).cards], "total": s.expedition(n).points}
                   for n in s.seating.expeditions}
        outcome = {"winner": s.outcome.winner, "reason": s.outcome.reason, "points": dict(s.outcome.points),
                   "rounds": s.round, "recount": recount}
    return {
        "game": game.id,
        "started": True,
        "round": s.round,
        "stage": s.stage,
        "step": s.step.value,
        "prompt": game.prompt(s),
        "turn": turn,
        "seating": {
            "players": s.seating.players, "expeditions": list(s.seating.expeditions), "sponsor": s.seating.sponsor,
            "variant": s.seating.variant, "target": s.seating.target, "rounds": s.seating.rounds,
            "win_rule": s.seating.win_rule, "cards_per_piece": s.seating.cards_per_piece,
            "tokens": list(s.seating.tokens),
        },
        "leaders": leaders,
        "expeditions": expeditions,
        "bank": s.bank,
        "last_throw": last,
        "monster": monster,
        "entitlement": [{"piece": p, "monster": m_, "pack": pack} for p, m_, pack in s.entitlement],
        "trump_next_round": ({"expedition": s.trump[0], "part": s.trump[2], "symbol": s.trump[3]} if s.trump else None),
        "report": list(s.report),
        "logistics_taken": s.logistics_taken,
        "outcome": outcome,
        "legal": game.legal_actions(s),
    }
