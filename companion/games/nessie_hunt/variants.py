"""The ways to play Nessie Hunt, as data the rules read (python-chess keeps variants as flags too).

    basic         the Basic Rules, for 1 (solitaire) to 5 players; shortened games are the basic game
                  with another target or a fixed number of rounds
    introductory  the Special Introductory Rules: economy first, then evidence, then throws; an
                  EYE WITNESS card for a throw of 5 or 6; no missed turns; no eye-witness sheets
    junior        the Junior Rules (ages 5 to 10): a fixed kit, £500, topped up under £100, 400 points,
                  no purchases, no running costs
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    name: str
    order: tuple[int, ...]  # the stages of a round, in order
    target: int  # the default target
    start_cash: int
    eye_witnesses: int  # issued at setup
    kit: tuple[str, ...] = ()  # equipment issued at setup instead of buying it (junior)
    purchases: bool = True
    running_costs: bool = True
    income: int = 150
    income_first_time: bool = True  # the first stage five pays income (introductory: "except first round")
    missed_turns: bool = True
    eyewitness_card_on: tuple[int, ...] = ()  # throws that earn an EYE WITNESS card (introductory)
    repurchase_gap: int = 2  # a piece returned in round r may be bought again from round r + gap
    cameras_once: bool = False  # after three surface cameras, underwater equipment in any order
    top_up_below: int = 0  # junior: a child with less than this after a round ...
    top_up: int = 0  # ... is given this much
    eye_witness_sheets: bool = True


VARIANTS = {
    # "The Sponsor issues £50 to each player"; "three eye-witness transparencies to each player".
    "basic": Variant("basic", order=(1, 2, 3, 4, 5, 6, 7, 8, 9), target=750, start_cash=50, eye_witnesses=3),
    # "Take income of £150 (except first round) ... Remove equipment ... Purchase & deploy" then evidence,
    # "PLAYERS DECLARE POINTS TOTALS", then "THROW DICE and move TOKEN" and place the monsters.
    "introductory": Variant(
        "introductory", order=(5, 6, 3, 4, 9, 1, 2), target=750, start_cash=50, eye_witnesses=0,
        income_first_time=False, missed_turns=False, eyewitness_card_on=(5, 6), repurchase_gap=1,
        cameras_once=True, eye_witness_sheets=False,
    ),
    # "Issue each child with three eye-witness transparencies, one surface camera, one cage, one sonar,
    # one underwater camera and a biological transparency ... Issue each child with £500 ... No equipment
    # is purchased and no running costs are paid ... The winner is the first child to get 400 points."
    "junior": Variant(
        "junior", order=(1, 2, 3, 4, 7, 8, 9), target=400, start_cash=500, eye_witnesses=3,
        kit=("surface_camera", "cage", "sonar", "underwater_camera", "biological_unit"),
        purchases=False, running_costs=False, income=0, top_up_below=100, top_up=500,
    ),
}
