"""Play complete games: seeded dice, decks stacked as the rulebook says, coverage by geometry.

Chance lives here, never in the rules: the die is a seeded ``random.Random``; the LOGISTICS deck is
shuffled green and red apart and stacked (set-up e); each evidence pack is shuffled.
"""

from __future__ import annotations

import random
import statistics
from collections import deque
from dataclasses import dataclass, field

from companion.games.nessie_hunt import (Advance, Buy, ClaimTrump, Coverage, EndTurn, EvidenceCard, LogisticsDealt,
                                         NessieHunt, NewGame, PlayTrump, RepayLoan, Step, Throw)
from companion.games.nessie_hunt.economy import sees
from companion.games.nessie_hunt.tracks import EXPEDITIONS

from .strategies import STRATEGIES, Strategy


def stacked_deck(box, rng: random.Random) -> deque:
    """"Place the first fifteen of the green printed cards face down ... all the red printed cards on top
    of these and finally place the remaining green printed cards on the top of the pack." Drawn from
    the left."""
    greens = [c.id for c in box.logistics if c.colour == "green"]
    reds = [c.id for c in box.logistics if c.colour == "red"]
    rng.shuffle(greens)
    rng.shuffle(reds)
    bottom, top = greens[: box.green_under_red], greens[box.green_under_red:]
    return deque(top + reds + bottom)


@dataclass
class GameResult:
    winner: str | None
    rounds: int
    reason: str
    seats: dict[str, str]  # expedition -> strategy
    points: dict[str, int]
    points_by_round: dict[str, list[int]]
    loans: int
    eliminated: list[str]
    actions: list = field(default_factory=list)


class Simulation:
    def __init__(self, game: NessieHunt, setup: NewGame, strategies: dict[str, Strategy], seed: int,
                 keep_actions: bool = False):
        self.game, self.setup, self.strategies = game, setup, strategies
        self.rng = random.Random(seed)
        self.deck = stacked_deck(game.box, self.rng)
        self.packs = {}
        for p in game.box.evidence_packs:
            values = list(p.values)
            self.rng.shuffle(values)
            self.packs[p.equipment] = deque(values)
        self.layout: dict[int, frozenset] = {}
        self.keep_actions = keep_actions
        self.actions: list = []
        self.loans = 0

    def act(self, s, action):
        before = sum(sum(1 for l in e.loans if l.kind == "sponsor") for e in s.expeditions if e) if s else 0
        s = self.game.apply(s, action)
        after = sum(sum(1 for l in e.loans if l.kind == "sponsor") for e in s.expeditions if e)
        if after > before:
            self.loans += after - before
        if self.keep_actions:
            self.actions.append(action)
        return s

    def run(self, round_cap: int = 200) -> GameResult:
        game, rng = self.game, self.rng
        s = self.act(None, self.setup)
        history = {n: [0] for n in s.seating.expeditions}
        last_round = s.round
        while s.step is not Step.OVER and s.round <= round_cap:
            s = self.act(s, self.next_action(s))
            if s.round != last_round:
                for n in history:
                    history[n].append(s.expedition(n).points)
                last_round = s.round
        points = {n: s.expedition(n).points for n in s.seating.expeditions}
        outcome = s.outcome
        return GameResult(
            winner=outcome.winner if outcome else None, rounds=s.round,
            reason=outcome.reason if outcome else f"no winner within {round_cap} rounds",
            seats={n: self.strategies[n].name for n in s.seating.expeditions}, points=points,
            points_by_round=history, loans=self.loans,
            eliminated=[e.name for e in s.expeditions if e and e.out], actions=self.actions,
        )

    def next_action(self, s):
        game, rng = self.game, self.rng
        step = s.step
        if step in (Step.THROW, Step.LOGISTICS_THROW, Step.TRUMP_DIE_OFF):
            return Throw(rng.randint(1, 6), "simulator")
        if step is Step.LOGISTICS:
            held = {c for e in s.expeditions if e for c in e.held}
            for _ in range(len(self.deck)):
                card = self.deck.popleft()
                self.deck.append(card)  # back under the pack once dealt with (house rule)
                if card not in held:
                    return LogisticsDealt(card)
            return LogisticsDealt(None)
        if step in (Step.CARD_EVIDENCE, Step.DRAW):
            pack = s.pending_pack if step is Step.CARD_EVIDENCE else s.entitlement[0][2]
            left = game.pack_left(s, pack)
            queue = self.packs[pack]
            while queue and left[queue[0]] <= 0:  # a game resumed from the log: skip cards already out
                queue.popleft()
            return EvidenceCard(queue.popleft() if queue else min(left))
        if step is Step.COVERAGE:
            name = game.evidence_turns(s)[s.turn]
            monsters = s.monster.hexes()
            covers = []
            for p in s.expedition(name).pieces:
                hexes = self.layout.get(p.id) or self._place(s, name, p)
                for label, hex in monsters.items():
                    if hex in hexes and sees(p.equipment, label) and p.equipment != "cage":
                        covers.append((p.id, label))
            return Coverage(tuple(covers))
        if step is Step.PURCHASE:
            name = game.purchaser(s)
            strategy = self.strategies[name]
            e = s.expedition(name)
            if e.sponsor_debt and e.cash:
                amount = strategy.repay(s, name)
                if amount:
                    return RepayLoan(amount)
            if not s.bought:
                options = game.legal_actions(s)[0]["options"]
                choice = strategy.choose_buy(game, s, name, options, rng)
                if choice is not None:
                    hex = None
                    pose_hexes = None
                    if choice["equipment"] == "cage":
                        pose_hexes = strategy.place(game, s, name, "cage", self.layout, rng)
                        hex = next(iter(pose_hexes[1]))
                    action = Buy(choice["equipment"], hex)
                    self.layout[s.next_piece] = (pose_hexes or strategy.place(game, s, name, choice["equipment"], self.layout, rng))[1]
                    return action
            return EndTurn()
        if step is Step.TRUMP:
            for a in game.legal_actions(s):
                if a["type"] == "claim-trump" and self.strategies[a["expedition"]].claim_trump(s, a["expedition"], rng):
                    return ClaimTrump(a["expedition"])
            return Advance()
        if step is Step.TRUMP_PLAY:
            a = game.legal_actions(s)[0]
            return PlayTrump(self.strategies[a["by"]].trump_symbol(game, s, a["by"], a["part"], a["symbols"], self.layout, rng))
        return Advance()

    def _place(self, s, name, piece):
        """Pieces issued at setup (eye witnesses, the junior kit) are placed by their owner's strategy."""
        if piece.equipment == "cage" and piece.hex:
            hexes = frozenset({piece.hex})
        else:
            hexes = self.strategies[name].place(self.game, s, name, piece.equipment, self.layout, self.rng)[1]
        self.layout[piece.id] = hexes
        return hexes


def seats_for(players: int) -> tuple[str, ...]:
    return {1: ("american",), 2: ("british", "american"), 3: ("japanese", "british", "american")}.get(players, EXPEDITIONS)


def simulate(game: NessieHunt, players: int, variant: str, strategies: list[str], games: int, seed: int,
             target: int = 0, rounds: int = 0) -> dict:
    """Play ``games`` games; strategies rotate round the seats so no seat favours one of them."""
    seats = seats_for(players)
    results = []
    for g in range(games):
        assign = {name: STRATEGIES[strategies[(i + g) % len(strategies)]]() for i, name in enumerate(seats)}
        setup = NewGame(players, seats, variant=variant, target=target, rounds=rounds)
        results.append(Simulation(game, setup, assign, seed * 1_000_003 + g).run())
    return summarise(results, strategies, seats)


def _pct(values, q):
    values = sorted(values)
    if not values:
        return None
    k = (len(values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def summarise(results: list[GameResult], strategies: list[str], seats) -> dict:
    won = [r for r in results if r.winner]
    rounds = [r.rounds for r in won]
    by_strategy = {s: {"seats": 0, "wins": 0} for s in strategies}
    by_seat = {s: {"games": 0, "wins": 0} for s in seats}
    first_evidence, per_round_swing, best_round = [], [], []
    for r in results:
        best_round.append(max((b - a for hist in r.points_by_round.values() for a, b in zip(hist, hist[1:])), default=0))
        for name, strat in r.seats.items():
            by_strategy[strat]["seats"] += 1
            by_seat[name]["games"] += 1
            if r.winner == name:
                by_strategy[strat]["wins"] += 1
                by_seat[name]["wins"] += 1
        for name, hist in r.points_by_round.items():
            gains = [b - a for a, b in zip(hist, hist[1:])]
            first = next((i + 1 for i, g in enumerate(gains) if g > 0), None)
            if first:
                first_evidence.append(first)
            per_round_swing.extend(g for i, g in enumerate(gains) if i >= len(gains) - 5)
    rate = lambda d, k: round(d["wins"] / d[k], 3) if d[k] else None  # noqa: E731
    return {
        "games": len(results),
        "finished": len(won),
        "rounds_to_win": {"mean": round(statistics.mean(rounds), 2) if rounds else None,
                          "median": statistics.median(rounds) if rounds else None,
                          "p10": _pct(rounds, 0.1), "p90": _pct(rounds, 0.9)},
        "win_rate_by_strategy": {s: rate(d, "seats") for s, d in by_strategy.items()},
        "win_rate_by_seat": {s: rate(d, "games") for s, d in by_seat.items()},
        "first_evidence_round": {"median": statistics.median(first_evidence) if first_evidence else None},
        "points_per_round_last_5": {"mean": round(statistics.mean(per_round_swing), 1) if per_round_swing else None,
                                    "p90": _pct(per_round_swing, 0.9)},
        "best_round_gain_per_game": {"median": statistics.median(best_round) if best_round else None,
                                     "p90": _pct(best_round, 0.9), "max": max(best_round, default=None)},
        "sponsor_loans_per_game": round(sum(r.loans for r in results) / len(results), 2) if results else 0,
        "eliminated_per_game": round(sum(len(r.eliminated) for r in results) / len(results), 2) if results else 0,
    }
