"""Score the dice reader against rendered scenes: shared by the tests and the benchmark.

A die counts as *right* when a reading with its value lies within half a die of its centre;
*wrong* when the nearest reading there has another value; *unread* when only an unreadable die was
reported there; *missed* when nothing was. Readings near no die are *extra*.

*near-wrong* counts what an evaluator matching by bounding box would call wrong: a reading with a
value within NEAR_SIDES of a die's centre (pairs taken closest first) whose value differs. On a
tilted view a side face read as the die lies 0.5-1 side off the top face's centre: missed plus
extra by the half-die rule, wrong by a box round the whole die.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .dice import Die, read_dice
from .dice_render import Scene, render_scene

NEAR_SIDES = 1.0  # a bounding box round a tilted die reaches about a side from its top face's centre


@dataclass
class Score:
    counts: Counter = field(default_factory=Counter)

    def add(self, other: "Score") -> None:
        self.counts.update(other.counts)

    @property
    def dice(self) -> int:
        return sum(self.counts[k] for k in ("right", "wrong", "unread", "missed"))

    @property
    def accuracy(self) -> float:
        return self.counts["right"] / self.dice if self.dice else 1.0

    def line(self) -> str:
        c = self.counts
        return (f"{100 * self.accuracy:5.1f}% right of {self.dice} dice (wrong {c['wrong']}, unread {c['unread']}, "
                f"missed {c['missed']}, extra {c['extra']}; near-wrong {c['near_wrong']})")


def score_scene(scene: Scene, found: list[Die]) -> Score:
    score = Score()
    used: set[int] = set()
    for truth in scene.dice:
        near = [(math.hypot(d.center[0] - truth.center[0], d.center[1] - truth.center[1]), k)
                for k, d in enumerate(found) if k not in used]
        near = [(dd, k) for dd, k in near if dd < 0.5 * truth.side_px]
        if not near:
            score.counts["missed"] += 1
            continue
        dd, k = min(near)
        used.add(k)
        d = found[k]
        score.counts["right" if d.value == truth.value else "unread" if d.value is None else "wrong"] += 1
    score.counts["extra"] += sum(1 for k, d in enumerate(found) if k not in used and d.value is not None)
    score.counts["near_wrong"] += near_wrong(scene, found)
    return score


def near_wrong(scene: Scene, found: list[Die]) -> int:
    """Readings with a value matched to a die within NEAR_SIDES of its centre, closest pairs
    first, whose value is not the die's."""
    pairs = sorted((math.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) / t.side_px, k, j)
                   for k, d in enumerate(found) if d.value is not None
                   for j, t in enumerate(scene.dice))
    taken_found, taken_true, wrong = set(), set(), 0
    for off, k, j in pairs:
        if off >= NEAR_SIDES or k in taken_found or j in taken_true:
            continue
        taken_found.add(k)
        taken_true.add(j)
        wrong += found[k].value != scene.dice[j].value
    return wrong


def evaluate(seeds, **render_args) -> tuple[Score, dict[str, dict[str, Score]]]:
    """Render a scene per seed, read it, and score overall and per category value."""
    total = Score()
    by: dict[str, dict[str, Score]] = defaultdict(lambda: defaultdict(Score))
    for seed in seeds:
        scene = render_scene(seed, **render_args)
        found = read_dice(scene.image)
        s = score_scene(scene, found)
        total.add(s)
        p = scene.params
        by["surface"][p["surface"]].add(s)
        by["tilt"]["tilted" if p["tilt"] > 0 else "top-down"].add(s)
        by["blur"][p["blur"]].add(s)
        by["touching"]["touching" if p["touching"] else "apart"].add(s)
        for truth in scene.dice:  # per die colour; extras are not split by colour
            one = score_scene(Scene(scene.image, [truth], scene.params), found)
            one.counts["extra"] = one.counts["near_wrong"] = 0  # both need all the dice
            by["colour"][truth.style].add(one)
    return total, by


def scenario(name: str, seed: int) -> dict:
    """Render arguments for scenes like the photos the accuracy target names.

    * ``webcam``: 640x480 frames of one to three white or ivory dice on a light or dark wooden
      desk (tilt, blur and glare drawn as usual);
    * ``phone``: 1600x1200 photos of two to six dice of mixed colours, 90-220 px across, on white
      paper or a felt tray.
    """
    import numpy as np

    rng = np.random.default_rng(seed + 777)
    if name == "webcam":
        n = int(rng.integers(1, 4))
        return {"size": (640, 480), "styles": [str(rng.choice(["white", "ivory"]))] * n, "n_dice": n,
                "surface": str(rng.choice(["wood_light", "wood_dark"]))}
    if name == "phone":
        return {"size": (1600, 1200), "n_dice": int(rng.integers(2, 7)), "die_px": float(rng.uniform(90, 220)),
                "surface": str(rng.choice(["white_paper", "felt_green", "felt_blue", "felt_black", "felt_red"]))}
    raise ValueError(f"unknown scenario {name!r}")


def evaluate_scenario(name: str, seeds) -> Score:
    total = Score()
    for seed in seeds:
        scene = render_scene(seed, **scenario(name, seed))
        total.add(score_scene(scene, read_dice(scene.image)))
    return total
