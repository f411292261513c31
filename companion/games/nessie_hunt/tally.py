"""The tally sheet: each expedition's points, cash and running costs round by round. Pure.

Built from the states after each action (the log is the truth): the last state of every round is
that round's line on the sheet.
"""

from __future__ import annotations

from .economy import running_cost
from .state import NessieState


def tally_sheet(game, states: list[NessieState]) -> dict:
    if not states:
        return {"expeditions": [], "rounds": []}
    names = list(states[-1].seating.expeditions)
    last_of_round: dict[int, NessieState] = {}
    for s in states:
        last_of_round[s.round] = s
    rows, before = [], {n: 0 for n in names}
    for rnd in sorted(last_of_round):
        s = last_of_round[rnd]
        line = {"round": rnd, "expeditions": {}}
        for n in names:
            e = s.expedition(n)
            line["expeditions"][n] = {
                "gained": e.points - before[n], "points": e.points, "cash": e.cash,
                "running_cost": running_cost(game.box, e), "missing_turns": e.missing_turns,
                "sponsor_debt": e.sponsor_debt, "cage": next((p.hex for p in e.pieces if p.equipment == "cage"), None),
                "out": e.out,
            }
            before[n] = e.points
        line["monster"] = (s.monster or (s.history[-1] if s.history else None))
        line["monster"] = line["monster"].surface if line["monster"] else None
        rows.append(line)
    return {"expeditions": names, "rounds": rows}


def tally_csv(sheet: dict) -> str:
    head = ["round"]
    for n in sheet["expeditions"]:
        head += [f"{n} gained", f"{n} points", f"{n} cash", f"{n} running cost"]
    lines = [",".join(head)]
    for row in sheet["rounds"]:
        cells = [str(row["round"])]
        for n in sheet["expeditions"]:
            e = row["expeditions"][n]
            cells += [str(e["gained"]), str(e["points"]), str(e["cash"]), str(e["running_cost"])]
        lines.append(",".join(cells))
    return "\r\n".join(lines) + "\r\n"
