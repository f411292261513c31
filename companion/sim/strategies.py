"""How a simulated expedition plays: what it buys, where it places each sheet, loans and trumps.

Each strategy sees only what a player sees (the state and the legal options) and a seeded random
generator; the rules decide everything else.
"""

from __future__ import annotations

import random

from .geometry import Pose, candidate_masks, candidate_poses, hex_bits


class Strategy:
    name = "base"

    def choose_buy(self, game, s, name: str, options: list[dict], rng: random.Random) -> dict | None:
        """The option to buy this turn, or None to buy nothing (the base strategy never buys)."""
        return None

    def place(self, game, s, name: str, equipment: str, layout: dict[int, frozenset], rng) -> tuple[Pose, frozenset]:
        """The pose covering most hexes that the expedition's own sheets do not cover yet."""
        bits = hex_bits(game.box)
        own = 0
        for p in s.expedition(name).pieces:
            for a in layout.get(p.id, ()):
                own |= bits[a]
        free = ~own
        best_gain, best = -1, []
        for i, mask in candidate_masks(game.box, equipment):
            gain = (mask & free).bit_count()
            if gain > best_gain:
                best_gain, best = gain, [i]
            elif gain == best_gain:
                best.append(i)
        return candidate_poses(game.box, equipment)[rng.choice(best)]

    def repay(self, s, name: str) -> int:
        e = s.expedition(name)
        return min(e.cash, e.sponsor_debt)

    def claim_trump(self, s, name: str, rng) -> bool:
        return True

    def trump_symbol(self, game, s, name: str, part: str, symbols: list[str], layout, rng) -> str:
        """The symbol that puts next round's monster where the expedition covers most hexes."""
        own = set()
        for p in s.expedition(name).pieces:
            own |= layout.get(p.id, frozenset())
        index = {"sector": 0, "column": 1, "row": 2}[part]
        return max(symbols, key=lambda sym: (sum(1 for h in own if h[index] == sym), rng.random()))


class Greedy(Strategy):
    """Buys the dearest piece it may every turn, underwater equipment as soon as it can, and lets
    running costs run past income by up to a quarter of its cash."""

    name = "greedy"

    def choose_buy(self, game, s, name, options, rng):
        e = s.expedition(name)
        costs = sum(game.box.equipment[p.equipment].running_cost for p in e.pieces)
        income = game.variant(s).income
        ok = [o for o in options if o["ok"] and costs + o["running_cost"] <= income + (e.cash - o["price"]) // 4]
        return max(ok, key=lambda o: (o["price"], rng.random())) if ok else None


class Prudent(Strategy):
    """Keeps income above running costs and a cash reserve; best coverage for the money."""

    name = "prudent"

    def choose_buy(self, game, s, name, options, rng):
        e = s.expedition(name)
        costs = sum(game.box.equipment[p.equipment].running_cost for p in e.pieces)
        income = game.variant(s).income
        ok = [o for o in options if o["ok"] and costs + o["running_cost"] <= income
              and e.cash - o["price"] >= o["running_cost"]]
        if not ok:
            return None
        return max(ok, key=lambda o: (o["equipment"] != "eye_witness", -o["price"], rng.random()))


class Random(Strategy):
    """Buys at random (70% of turns), places at random: the baseline."""

    name = "random"

    def choose_buy(self, game, s, name, options, rng):
        ok = [o for o in options if o["ok"]]
        return rng.choice(ok) if ok and rng.random() < 0.7 else None

    def place(self, game, s, name, equipment, layout, rng):
        return rng.choice(candidate_poses(game.box, equipment))

    def claim_trump(self, s, name, rng):
        return rng.random() < 0.5


STRATEGIES = {cls.name: cls for cls in (Greedy, Prudent, Random)}
