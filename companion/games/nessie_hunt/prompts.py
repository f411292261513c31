"""What the table is told to do now, and what it may do: the prompt and the legal actions. Pure.

The dashboard draws its buttons from ``legal_actions``, so it never offers an illegal move; a
purchase it cannot allow is listed with the reason.
"""

from __future__ import annotations

from . import economy
from .economy import title
from .logistics import held_anywhere
from .state import NessieState, Step

STAGE_NAMES = {1: "Stage one", 2: "Stage two", 3: "Stage three", 4: "Stage four", 5: "Stage five", 6: "Stage six",
               7: "Stage seven", 8: "Stage eight", 9: "Stage nine"}


def _who_draws(game, s: NessieState) -> tuple[str, str]:
    if s.step is Step.CARD_EVIDENCE:
        return s.seating.tokens[s.turn], s.pending_pack
    return game.evidence_turns(s)[s.turn], s.entitlement[0][2]


def prompt(game, s: NessieState | None) -> str:
    if s is None:
        return "Set up a game: choose the players and their expeditions."
    head = f"{STAGE_NAMES[s.stage]}, round {s.round}."
    step = s.step
    if step is Step.OVER:
        o = s.outcome
        return f"The hunt is over. {o.reason[0].upper() + o.reason[1:]}." if o.winner else f"The hunt is over: {o.reason}."
    if step is Step.THROW:
        token = s.seating.tokens[s.turn]
        by = s.seating.thrower(token)
        missing = " (even though missing a turn)" if s.is_missing_turn(token) else ""
        if by == token:
            return f"{head} {title(token)}: throw the die{missing}."
        return f"{head} {title(by)}: throw the die for the {title(token)} token."
    if step is Step.LOGISTICS:
        token = s.seating.tokens[s.turn]
        return (f"{head} {title(token)} landed on a '*': take a LOGISTICS card, read it aloud and act on it. "
                "The next expedition waits until it has been dealt with.")
    if step is Step.LOGISTICS_THROW:
        card = game.box.card(s.pending_card)
        return f"{head} {title(s.seating.tokens[s.turn])}: throw the die for card {card.id} ({card.text})"
    if step in (Step.CARD_EVIDENCE, Step.DRAW):
        name, pack = _who_draws(game, s)
        label = game.box.pack(pack).label
        if step is Step.DRAW:
            piece, monster, _ = s.entitlement[0]
            return (f"{head} {title(name)}: take the top card of the {label} pack (piece {piece}, {monster} monster), "
                    f"read it aloud and enter its points. {len(s.entitlement)} card(s) to draw.")
        return f"{head} {title(name)}: take the top card of the {label} pack, read it aloud and enter its points."
    if step is Step.MONSTER:
        m = s.monster
        if m is None or m.surface is None:
            why = m.reason if m else "no monster"
            return f"{head} No monster this round: {why}."
        text = f"{head} The Sponsor places the Head and Neck on {m.surface}."
        if m.trump:
            text += f" ({m.trump}.)"
        placed = m.placed_submerged
        if placed:
            text += " Submerged monsters on " + ", ".join(placed.values()) + "."
        else:
            text += " No underwater equipment is in use, so no submerged monsters."
        return text
    if step is Step.COVERAGE:
        name = game.evidence_turns(s)[s.turn]
        hexes = ", ".join(f"{k} {v}" for k, v in s.monster.hexes().items())
        return (f"{head} {title(name)}: does any part of your transparencies cover the monsters ({hexes}) or their "
                "border lines? Enter which pieces cover which monster.")
    if step is Step.PURCHASE:
        name = game.purchaser(s)
        e = s.expedition(name)
        extra = " You are missing a turn: you may return equipment but not buy." if e.missing_turns else ""
        debt = f" You owe the Sponsor £{e.sponsor_debt}." if e.sponsor_debt else ""
        return (f"{head} {title(name)} (£{e.cash}): buy one piece of equipment, return any you no longer need, "
                f"then end your turn.{extra}{debt}")
    if step is Step.TOTALS:
        totals = ", ".join(f"{title(n)} {s.expedition(n).points}" for n in s.seating.expeditions)
        return f"{head} The Sponsor reads out the totals: {totals}."
    if step is Step.TRUMP:
        holders = [title(n) for n in s.playing if game._trumps(s, n)]
        return (f"{head} Players holding trump cards ({', '.join(holders)}) may play one now to influence the "
                "monster's position next round. Only one may be played; Next when everyone has decided.")
    if step is Step.TRUMP_DIE_OFF:
        return f"{head} Several want to play a trump card: {title(s.claims[len(s.die_off)])}, throw the die."
    if step is Step.TRUMP_PLAY:
        name = s.claims[0]
        part = game.box.card(game._trumps(s, name)[0]).get("part")
        from .rules import PARTS

        return f"{head} {title(name)} plays a trump card: choose the {PARTS[part]} of next round's monster."
    return head


def legal_actions(game, s: NessieState | None) -> list[dict]:
    """What may be done now, as the dashboard draws it (never an illegal move)."""
    if s is None:
        return [{"type": "new-game"}]
    step = s.step
    if step is Step.OVER:
        return []
    if step is Step.THROW:
        token = s.seating.tokens[s.turn]
        return [{"type": "throw", "token": token, "by": s.seating.thrower(token), "values": [1, 2, 3, 4, 5, 6]}]
    if step is Step.LOGISTICS:
        held = held_anywhere(s)
        return [{"type": "logistics-dealt", "by": s.seating.tokens[s.turn],
                 "cards": [c.id for c in game.box.logistics if c.id not in held]}]
    if step is Step.LOGISTICS_THROW:
        name = s.seating.tokens[s.turn]
        return [{"type": "throw", "token": name, "by": name, "for": s.pending_card, "values": [1, 2, 3, 4, 5, 6]}]
    if step in (Step.CARD_EVIDENCE, Step.DRAW):
        name, pack = _who_draws(game, s)
        return [{"type": "evidence-card", "by": name, "pack": pack, "values": sorted(game.pack_left(s, pack))}]
    if step is Step.COVERAGE:
        name = game.evidence_turns(s)[s.turn]
        monsters = s.monster.hexes()
        pieces = [{"id": p.id, "equipment": p.equipment, "hex": p.hex,
                   "can_see": [m for m in monsters if economy.sees(p.equipment, m)
                               and (p.equipment != "cage" or p.hex == monsters[m])]}
                  for p in s.expedition(name).pieces]
        return [{"type": "coverage", "by": name, "monsters": monsters, "pieces": pieces}]
    if step is Step.PURCHASE:
        name = game.purchaser(s)
        v = game.variant(s)
        options = []
        for eq, kind in game.box.equipment.items():
            why = economy.why_not_buy(s, game.box, v, name, eq, "A1a" if eq == "cage" else None)
            options.append({"equipment": eq, "label": kind.label, "price": kind.price,
                            "running_cost": kind.running_cost, "ok": why is None, "why": why[0] if why else None,
                            "needs_hex": eq == "cage"})
        returns = []
        for p in s.expedition(name).pieces:
            why = economy.why_not_return(s, game.box, name, p.id)
            returns.append({"piece": p.id, "equipment": p.equipment, "ok": why is None, "why": why[0] if why else None})
        out = [{"type": "buy", "by": name, "options": options}, {"type": "return", "by": name, "pieces": returns}]
        e = s.expedition(name)
        if e.sponsor_debt and e.cash:
            out.append({"type": "repay-loan", "by": name, "owed": e.sponsor_debt, "max": min(e.cash, e.sponsor_debt)})
        out.append({"type": "end-turn", "by": name, "label": f"{title(name)}: end turn"})
        return out
    if step is Step.TRUMP:
        out = [{"type": "claim-trump", "expedition": n} for n in s.playing if game._trumps(s, n) and n not in s.claims]
        return out + [{"type": "advance", "label": "Trump cards decided"}]
    if step is Step.TRUMP_DIE_OFF:
        name = s.claims[len(s.die_off)]
        return [{"type": "throw", "token": name, "by": name, "for": "trump", "values": [1, 2, 3, 4, 5, 6]}]
    if step is Step.TRUMP_PLAY:
        name = s.claims[0]
        part = game.box.card(game._trumps(s, name)[0]).get("part")
        g = game.box.loch.grid
        symbols = {"sector": list(g.sectors), "column": [str(n) for n in range(1, g.columns_per_sector + 1)],
                   "row": list(g.rows)}[part]
        return [{"type": "play-trump", "by": name, "part": part, "symbols": symbols}]
    labels = {Step.MONSTER: "Next: evidence", Step.TOTALS: "Next"}
    return [{"type": "advance", "label": labels.get(step, "Next")}]
