"""Nessie Hunt rules: simulator games per second per core, and replaying a 25-round four-player game.

Targets (issue 3): at least 50 complete four-player games per second per core; a 25-round game
replayed in at most 20 ms. Times are CPU time of this process (one core), so other load on the
machine does not count against them.
"""

from __future__ import annotations

import json
import time

from companion.box_profiles import load_box
from companion.games.nessie_hunt import NessieHunt, NewGame, action_to_json
from companion.sim.geometry import candidate_masks
from companion.sim.runner import Simulation
from companion.sim.strategies import STRATEGIES

SEATS = ("independent", "japanese", "british", "american")


def run() -> list[str]:
    box = load_box()
    game = NessieHunt(box)
    t = time.process_time()
    for eq in box.equipment:
        candidate_masks(box, eq)
    setup_s = time.process_time() - t

    n = 60
    t = time.process_time()
    rounds = []
    for g in range(n):
        strategies = {s: STRATEGIES[("greedy", "prudent", "random")[(i + g) % 3]]() for i, s in enumerate(SEATS)}
        rounds.append(Simulation(game, NewGame(4, SEATS), strategies, seed=g).run().rounds)
    cpu = time.process_time() - t
    lines = [f"simulator: {n / cpu:6.1f} four-player games per CPU second ({cpu / n * 1e3:.1f} ms a game, "
             f"{sum(rounds) / n:.1f} rounds on average; target 50/s; one-off pose table {setup_s:.2f} s)"]

    # A 25-round game: play seeds until one lasts at least 25 rounds, keep its actions.
    actions = None
    for seed in range(200):
        strategies = {s: STRATEGIES["prudent"]() for s in SEATS}
        sim = Simulation(game, NewGame(4, SEATS), strategies, seed=seed, keep_actions=True)
        result = sim.run()
        if result.rounds >= 25:
            cut = [a for a in sim.actions]
            actions = cut
            break
    if actions is None:
        return lines + ["replay: no simulated game lasted 25 rounds"]
    texts = [json.dumps(action_to_json(a)) for a in actions]
    best = min(_time(lambda: game.replay(actions)) for _ in range(7))
    base = min(_time(lambda: [json.loads(x) for x in texts]) for _ in range(7))
    lines.append(f"replay a {result.rounds}-round four-player game ({len(actions)} actions): {best * 1e3:.2f} ms "
                 f"(target 20 ms; {best / base:.1f}x the baseline json.loads of its log, {base * 1e3:.2f} ms)")
    return lines


def _time(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t
