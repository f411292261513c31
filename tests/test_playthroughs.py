"""1,000 games of random legal actions, checking the invariants after every action:

- money is conserved: it only moves between the expeditions and the Sponsor's bank
  (sum of cash + bank == 0), and no expedition's cash is ever negative;
- points are the sum of the cards kept, and no pack gives more cards than it holds;
- every action survives a JSON round trip, and replaying the log equals the live state;
- every game ends (a winner, everyone out, or the round cap).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from companion.games.nessie_hunt import NessieHunt, Step, action_from_json, action_to_json
from tests.nessie_helpers import SETUPS, random_action

GAMES = 1000


def check_invariants(game, s):
    exps = [e for e in s.expeditions if e]
    assert sum(e.cash for e in exps) + s.bank == 0
    assert all(e.cash >= 0 for e in exps)
    drawn = Counter((c.pack, c.points) for e in exps for c in e.cards)
    for (pack, points), n in drawn.items():
        assert n <= Counter(game.box.pack(pack).values)[points]
    for e in exps:
        assert all(l.owed > 0 for l in e.loans)
        assert e.missing_turns in (0, 1, 2)
        if e.out:
            assert e.pieces == ()
        counts = Counter(p.equipment for p in e.pieces)
        for eq, n in counts.items():
            assert n <= game.box.equipment[eq].per_colour


@pytest.mark.parametrize("chunk", range(10))
def test_random_games_keep_every_invariant_and_replay_exactly(box, chunk):
    game = NessieHunt(box)
    ended = Counter()
    for seed in range(chunk * GAMES // 10, (chunk + 1) * GAMES // 10):
        rng = random.Random(seed)
        setup = SETUPS[seed % len(SETUPS)]
        s = game.start(setup)
        log = [action_to_json(setup)]
        for _ in range(20_000):
            if s.step is Step.OVER:
                break
            action = random_action(game, s, rng)
            s = game.apply(s, action)
            text = json.dumps(action_to_json(action))
            assert action_from_json(json.loads(text)) == action
            log.append(json.loads(text))
            check_invariants(game, s)
        assert s.step is Step.OVER, f"game {seed} did not end"
        ended[s.outcome.winner is not None] += 1
        assert game.replay([action_from_json(a) for a in log]) == s
    assert ended[True] > 0
