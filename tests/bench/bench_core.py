"""Foundation: replaying a 3,000-action log, locating all 288 hexes, server push latency.

Targets (issue 2): replay <= 50 ms; locate all 288 with their submerged monsters <= 5 ms;
every connected page updated within 100 ms of an action.
"""

from __future__ import annotations

import http.client
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.box_profiles import load_box
from companion.games.nessie_hunt import NessieHunt, NewGame, action_to_json
from companion.store import EventStore
from companion.table import Table

FOUR = NewGame(4, ("independent", "japanese", "british", "american"), "independent")


def best_of(fn, repeat=7):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


# A game that lasts: the junior rules (no purchases, topped-up cash, so nobody goes out) with a target
# nobody reaches; a basic game between simulated players ends (or everyone is out) within ~100 rounds.
LONG = NewGame(4, ("independent", "japanese", "british", "american"), target=100_000, variant="junior")


def script(game, n):
    """The first ``n`` actions of one long simulated game (junior rules, a target nobody reaches)."""
    from companion.sim.runner import Simulation
    from companion.sim.strategies import STRATEGIES

    players = {e: STRATEGIES["greedy"]() for e in LONG.expeditions}
    sim = Simulation(game, LONG, players, seed=2, keep_actions=True)
    sim.run(round_cap=400)
    if len(sim.actions) < n:
        raise RuntimeError(f"the simulated game gave only {len(sim.actions)} actions")
    return sim.actions[:n]


def run() -> list[str]:
    lines = []
    box = load_box()
    game = NessieHunt(box)
    actions = script(game, 3000)
    texts = [json.dumps(action_to_json(a)) for a in actions]

    baseline, _ = best_of(lambda: [json.loads(t) for t in texts])
    fold, fold_med = best_of(lambda: game.replay(actions))
    lines.append(f"fold 3,000 actions (junior game):            best {fold * 1e3:6.2f} ms, median {fold_med * 1e3:6.2f} ms "
                 f"(target 50 ms; {fold / baseline:4.1f}x the baseline: json.loads of the same log, {baseline * 1e3:.2f} ms)")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite"
        store = EventStore(path)
        store.create_game(game.id, box.name, box.digest, [action_to_json(a) for a in actions])
        store.close()

        def rebuild():
            s = EventStore(path)
            Table(NessieHunt(box), s)
            s.close()

        full, full_med = best_of(rebuild)
        lines.append(f"rebuild from SQLite (3,000):   best {full * 1e3:6.2f} ms, median {full_med * 1e3:6.2f} ms "
                     f"(read + parse + fold + per-action snapshots; {full / baseline:4.1f}x baseline)")

    addresses = [h.address for h in box.loch.hexes]
    parse_only, _ = best_of(lambda: [box.loch.parse(a) for a in addresses], repeat=21)
    locate, locate_med = best_of(lambda: [box.loch.locate(a) for a in addresses], repeat=21)
    lines.append(f"locate all 288 + submerged:    best {locate * 1e3:6.3f} ms, median {locate_med * 1e3:6.3f} ms "
                 f"(target 5 ms; {locate / parse_only:4.1f}x the baseline: parsing the 288 addresses, {parse_only * 1e3:.3f} ms)")

    lines.extend(push_latency(box, pages=20, actions=30))
    return lines


def push_latency(box, pages: int, actions: int) -> list[str]:
    """Time from an action's HTTP POST being sent to each connected page receiving the new view."""
    import waitress

    from companion.config import Config
    from companion.service import Service
    from companion.web import create_app

    with tempfile.TemporaryDirectory() as tmp:
        service = Service(Config(database=str(Path(tmp) / "push.sqlite")))
        server = waitress.create_server(create_app(service), host="127.0.0.1", port=0, threads=pages + 8)
        threading.Thread(target=server.run, daemon=True).start()
        port = server.effective_port
        received: list[list[float]] = [[] for _ in range(pages)]
        ready = threading.Barrier(pages + 1)

        def listen(i):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/api/events")
            resp = conn.getresponse()
            first = True
            buf = b""
            while len(received[i]) < actions:
                chunk = resp.fp.readline()
                if not chunk:
                    break
                buf += chunk
                if chunk.startswith(b"data: "):
                    if first:
                        first = False
                        ready.wait()
                    else:
                        received[i].append(time.perf_counter())
            conn.close()

        threads = [threading.Thread(target=listen, args=(i,), daemon=True) for i in range(pages)]
        for t in threads:
            t.start()
        ready.wait(timeout=30)
        sent = []
        post = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for n in range(actions):
            import random

            from tests.nessie_helpers import random_action

            action = random_action(service.game, service.table.state, random.Random(n))
            body = service.game.action_to_json(action)
            sent.append(time.perf_counter())
            post.request("POST", "/api/actions", json.dumps(body), {"Content-Type": "application/json"})
            post.getresponse().read()
            time.sleep(0.05)  # people do not act faster than this
        for t in threads:
            t.join(timeout=10)
        delays = sorted((r[k] - sent[k]) * 1e3 for r in received for k in range(min(len(r), len(sent))))
        service.close()  # ends the event streams first, so waitress can finish them cleanly
        time.sleep(0.3)
        server.close()
    if not delays:
        return ["server push: no events received"]
    p95 = delays[int(0.95 * (len(delays) - 1))]
    return [f"server push, {pages} pages x {actions} actions: median {statistics.median(delays):5.1f} ms, "
            f"p95 {p95:5.1f} ms, max {delays[-1]:5.1f} ms (target 100 ms; {len(delays)} deliveries)"]
