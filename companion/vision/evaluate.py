"""Scoring vision against rendered truth (tests and ``make bench``).

Coverage decisions are counted per (hex, expedition), as issue 5's targets put it: a decision
whose sheet edge lies within 0.5 mm of the hex's outer border line is too close to call and not
counted ("close"); a hex hidden in the render (glare, deep shadow, a hand, out of frame) may be
answered "unknown" without penalty; "unknown" elsewhere is counted separately, never as an error
and never as "uncovered".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .coverage import EXPEDITIONS


@dataclass
class CoverageScore:
    decisions: int = 0  # counted decisions (not close)
    errors: int = 0
    false_covered: int = 0
    false_uncovered: int = 0
    close: int = 0
    unknown_hidden: int = 0  # "unknown" where the render hid the hex: fine
    unknown_visible: int = 0  # "unknown" where the render did not hide it: a missed decision
    near_border: int = 0  # counted decisions whose sheet edge lies 0.5 to 2 mm from the border line
    near_border_errors: int = 0
    glare_false_covered: int = 0  # uncovered hexes under glare called covered (target: none)
    shadow_false_covered: int = 0  # uncovered hexes under a deep shadow called covered (target: none)
    error_list: list = field(default_factory=list)

    def add(self, other: "CoverageScore") -> None:
        for k in ("decisions", "errors", "false_covered", "false_uncovered", "close", "unknown_hidden",
                  "unknown_visible", "near_border", "near_border_errors", "glare_false_covered",
                  "shadow_false_covered"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.error_list += other.error_list

    @property
    def error_rate(self) -> float:
        return self.errors / max(self.decisions, 1)

    @property
    def near_border_error_rate(self) -> float:
        return self.near_border_errors / max(self.near_border, 1)


def score_coverage(box, truth: dict, covered: dict[str, list[str]], unknown: dict[str, list[str]],
                   near: dict[str, set[str]] | None = None) -> CoverageScore:
    """Compare a measurement (covered / unknown hexes per expedition) with a render's truth.

    ``near``: per expedition the hexes whose decision lies 0.5-2 mm from a sheet edge (see
    :func:`near_border_hexes`); those are also tallied apart.
    """
    sc = CoverageScore()
    hidden = truth.get("hidden", {})
    for e in EXPEDITIONS:
        tc = truth["coverage"].get(e, {})
        got, und = set(covered.get(e, [])), set(unknown.get(e, []))
        nb = (near or {}).get(e, set())
        for h in box.loch.hexes:
            a = h.address
            d = tc.get(a, {"covered": False, "close": False})
            if d["close"]:
                sc.close += 1
                continue
            if a in und:
                if a in hidden:
                    sc.unknown_hidden += 1
                else:
                    sc.unknown_visible += 1
                continue
            sc.decisions += 1
            wrong = (a in got) != d["covered"]
            if a in nb:
                sc.near_border += 1
                sc.near_border_errors += int(wrong)
            if hidden.get(a) == "glare" and a in got and not d["covered"]:
                sc.glare_false_covered += 1
            if hidden.get(a) == "shadow" and a in got and not d["covered"]:
                sc.shadow_false_covered += 1
            if wrong:
                sc.errors += 1
                if a in got:
                    sc.false_covered += 1
                else:
                    sc.false_uncovered += 1
                sc.error_list.append((e, a, "covered" if a in got else "uncovered"))
    return sc


def near_border_hexes(box, sheets, low: float = 0.5, high: float = 2.0) -> dict[str, set[str]]:
    """Per expedition, the hexes where some sheet's edge lies ``low``-``high`` mm from the outer border line
    (on either side) without the decision being too close to call."""
    from .sheets import hex_coverage

    wide = hex_coverage(box, sheets, close_mm=high)
    tight = hex_coverage(box, sheets, close_mm=low)
    out: dict[str, set[str]] = {}
    for e, per in wide.items():
        t = tight.get(e, {})
        out[e] = {a for a, d in per.items() if d.close and not (a in t and t[a].close)}
    return out


def hex_centre_error_mm(box, reg, truth: dict) -> np.ndarray:
    """Registration error at every hex centre: where the registration puts it vs where the render did (mm)."""
    addrs = list(truth["hex_centres_px"])
    centres = np.array([box.loch.parse(a).center for a in addrs], float)
    true_px = np.array([truth["hex_centres_px"][a] for a in addrs], float)
    got = reg.to_photo(centres)
    scale = np.linalg.norm(reg.to_photo(centres + [1.0, 0.0]) - got, axis=1)
    return np.linalg.norm(got - true_px, axis=1) / np.maximum(scale, 1e-9)
