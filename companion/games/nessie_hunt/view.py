"""What the table is told now: a JSON-ready picture of the state for the dashboard. Pure."""

from __future__ import annotations

from .rules import NessieHunt
from .state import NessieState, Step
from .tracks import EXPEDITIONS

COLOURS = {"independent": "green", "japanese": "yellow", "british": "red", "american": "blue"}


def table_view(game: NessieHunt, s: NessieState | None) -> dict:
    if s is None:
        return {"game": game.id, "started": False, "prompt": game.prompt(None), "legal": game.legal_actions(None)}
    leaders = []
    reveal = s.step is Step.MONSTER  # the tokens are lifted in stage two, so their symbols show
    for e in EXPEDITIONS:
        track = game.box.tracks[e]
        pos = s.position(e)
        space = track.spaces[pos]
        leaders.append({
            "expedition": e,
            "colour": COLOURS[e],
            "moving": e in s.seating.tokens,
            "played_by": s.seating.thrower(e) if e in s.seating.tokens else None,
            "human": e in s.seating.expeditions,
            "space": pos,
            "at_mm": list(space.at),
            "symbol": space.symbol if reveal else None,
            "missing_turns": s.missing_turns[EXPEDITIONS.index(e)],
            "equipment": list(s.equipment_of(e)),
        })
    monster = None
    if s.monster is not None:
        m = s.monster
        monster = {
            "surface": m.surface,
            "reason": m.reason,
            "submerged": dict(m.submerged),
            "submerged_in_play": m.submerged_in_play,
        }
    last = None
    if s.last_throw is not None:
        t = s.last_throw
        last = {"token": t.token, "value": t.value, "source": t.source, "from": t.from_space, "to": t.to_space}
    return {
        "game": game.id,
        "started": True,
        "round": s.round,
        "stage": s.stage,
        "step": s.step.value,
        "prompt": game.prompt(s),
        "turn": s.token_to_throw or (s.seating.tokens[s.turn] if s.step is Step.LOGISTICS else None),
        "seating": {
            "players": s.seating.players,
            "expeditions": list(s.seating.expeditions),
            "sponsor": s.seating.sponsor,
            "variant": s.seating.variant,
            "target": s.seating.target,
            "tokens": list(s.seating.tokens),
        },
        "leaders": leaders,
        "last_throw": last,
        "monster": monster,
        "logistics_taken": s.logistics_taken,
        "legal": game.legal_actions(s),
    }
