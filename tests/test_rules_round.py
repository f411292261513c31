"""Nessie Hunt stages three to nine, money, loans, LOGISTICS cards, trumps and the variants.

Each test names the rulebook passage (seeds/000_5221d2090e374035.txt) it checks.
"""

from __future__ import annotations

import pytest

from companion.errors import IllegalAction
from companion.games.nessie_hunt import (Advance, Buy, ClaimTrump, Coverage, EndTurn, EvidenceCard, LogisticsDealt,
                                         NewGame, PlayTrump, RepayLoan, Return, Step, Throw)
from companion.games.nessie_hunt.state import Card, Loan
from tests.nessie_helpers import FOUR, at, give, index_of, play_until, setx, stage_two_at, to_stage


def card_of(box, kind, **match):
    return next(c.id for c in box.logistics if c.kind == kind and all(c.get(k) == v for k, v in match.items()))


def at_coverage(game, box, s, name, address="D3b"):
    """Stage three with the monster on ``address``, at ``name``'s coverage step (others cover nothing)."""
    s = stage_two_at(game, box, s, address[0], address[1], address[2])
    s = game.apply(s, Advance())
    return play_until(game, s, lambda x: x.step is Step.COVERAGE and game.evidence_turns(x)[x.turn] == name)


def purchase_turn(game, s, name):
    s = to_stage(game, s, 6, Step.PURCHASE)
    return play_until(game, s, lambda x: x.step is Step.PURCHASE and game.purchaser(x) == name)


def draw(game, box, s, name, card):
    """``name`` lands on a star in stage one and takes ``card``."""
    s = play_until(game, s, lambda x: x.token_to_throw == name)
    star = index_of(box.tracks[name], lambda sp: sp.star)
    s = game.apply(at(s, **{name: star - 1}), Throw(1))
    assert s.step is Step.LOGISTICS
    return game.apply(s, LogisticsDealt(card))


def pieces(s, name, equipment):
    return [p.id for p in s.expedition(name).pieces if p.equipment == equipment]


# -- setup ------------------------------------------------------------------------------------

def test_the_sponsor_issues_fifty_pounds_to_each_player(game):
    """'The Sponsor issues £50 to each player including himself as INDEPENDENT.'"""
    s = game.start(FOUR)
    assert [s.expedition(n).cash for n in s.seating.expeditions] == [50, 50, 50, 50]
    assert s.bank == -200


# -- stage three ------------------------------------------------------------------------------

def test_covering_pieces_earn_cards_from_their_own_packs(game, box):
    """'Take the evidence card or cards, to which you are entitled, from the top of the appropriate packs.'
    House reading: one card per piece per monster it covers (evidence.py quotes the passages)."""
    s = give(game.start(FOUR), "british", "sonar", "surface_camera")
    sonar, camera = pieces(s, "british", "sonar")[0], pieces(s, "british", "surface_camera")[0]
    s = at_coverage(game, box, s, "british")
    assert s.monster.placed_submerged == {"left": "C5b", "right": "E1b", "down": "D3f"}
    s = game.apply(s, Coverage(((sonar, "surface"), (sonar, "left"), (camera, "surface"))))
    assert [(p, m, pack) for p, m, pack in s.entitlement] == [
        (sonar, "surface", "sonar"), (sonar, "left", "sonar"), (camera, "surface", "surface_camera")]
    assert "SONAR EVIDENCE pack" in game.prompt(s)
    for points in (30, 280, 100):
        s = game.apply(s, EvidenceCard(points))
    assert s.expedition("british").points == 410  # 'Your points are kept as a cumulative running total'
    assert game.evidence_turns(s)[s.turn] == "american"


def test_one_card_per_piece_when_the_table_prefers_it(game, box):
    s = give(game.start(NewGame(4, FOUR.expeditions, cards_per_piece="per-piece")), "british", "sonar")
    sonar = pieces(s, "british", "sonar")[0]
    s = at_coverage(game, box, s, "british")
    s = game.apply(s, Coverage(((sonar, "surface"), (sonar, "left"))))
    assert len(s.entitlement) == 1


@pytest.mark.parametrize("equipment", ["eye_witness", "surface_camera"])
def test_eye_witnesses_and_surface_cameras_see_only_the_head_and_neck(game, box, equipment):
    """'REMEMBER EYE WITNESSES AND SURFACE CAMERAS CAN ONLY 'SEE' THE (surface) HEAD AND NECK MONSTER.'"""
    s = give(game.start(FOUR), "british", equipment, "sonar")
    piece = pieces(s, "british", equipment)[0]
    s = at_coverage(game, box, s, "british")
    with pytest.raises(IllegalAction) as err:
        game.apply(s, Coverage(((piece, "left"),)))
    assert "SURFACE CAMERAS CAN ONLY 'SEE'" in err.value.rule


def test_the_cage_scores_only_in_its_own_hexagon_and_the_companion_knows_it(game, box):
    """'Cages may only occupy ONE HEXAGON, and can only obtain evidence IN that hexagon.'"""
    s = give(game.start(FOUR), "american", "sonar", "cage", hex="D3b")
    cage = pieces(s, "american", "cage")[0]
    s = at_coverage(game, box, s, "american")
    with pytest.raises(IllegalAction, match="only in that hexagon"):
        game.apply(s, Coverage(((cage, "left"),)))
    s = game.apply(s, Coverage(()))  # not listed: the tally sheet has the cage's hexagon
    assert s.entitlement == ((cage, "surface", "cage"),)


def test_covering_a_monster_that_is_not_there_or_a_piece_you_do_not_own_is_refused(game, box):
    s = give(game.start(FOUR), "british", "surface_camera")
    s = at_coverage(game, box, s, "british")
    with pytest.raises(IllegalAction, match="no left monster"):
        game.apply(s, Coverage(((pieces(s, "british", "surface_camera")[0], "left"),)))
    with pytest.raises(IllegalAction, match="no piece number 999"):
        game.apply(s, Coverage(((999, "surface"),)))


def test_players_missing_a_turn_take_no_part_in_stage_three(game, box):
    """'PLAYERS MISSING TURNS TAKE NO PART IN STAGE THREE'."""
    s = setx(game.start(FOUR), "japanese", missing_turns=1)
    s = at_coverage(game, box, s, "british")
    assert "JAPANESE is missing a turn and takes no part in stage three." in s.report


def test_an_unpaid_sponsor_loan_blocks_evidence_but_a_bank_loan_does_not(game, box):
    """'If you have to borrow then YOU CANNOT GET ANY EVIDENCE UNTIL THE LOAN AND INTEREST IS REPAID'; 'The
    Bank Loan card ... is a term loan and does not prevent you from seeing the monster.'"""
    s = game.start(FOUR)
    s = setx(s, "japanese", loans=(Loan("sponsor", 30, 5, 20),))
    s = setx(s, "british", loans=(Loan("bank", 260, 5, 200),))
    s = stage_two_at(game, box, s, "D", "3", "b")
    s = game.apply(s, Advance())
    order = []
    while s.stage == 3:
        order.append(game.evidence_turns(s)[s.turn])
        s = game.apply(s, Coverage(()))
    assert order == ["independent", "british", "american"]


def test_evidence_points_must_be_a_card_still_in_the_pack(game, box):
    s = give(game.start(FOUR), "british", "sonar")
    s = at_coverage(game, box, s, "british")
    s = game.apply(s, Coverage(((pieces(s, "british", "sonar")[0], "surface"),)))
    with pytest.raises(IllegalAction, match="no card worth 35 is left in the SONAR EVIDENCE pack"):
        game.apply(s, EvidenceCard(35))


def test_an_empty_pack_gives_no_card(game, box):
    s = give(game.start(FOUR), "british", "surface_camera")
    every = tuple(Card("surface_camera", v, 0) for v in box.pack("surface_camera").values)
    s = setx(s, "american", cards=every)
    s = at_coverage(game, box, s, "british")
    s = game.apply(s, Coverage(((pieces(s, "british", "surface_camera")[0], "surface"),)))
    assert s.step is Step.COVERAGE and game.evidence_turns(s)[s.turn] == "american"
    assert any("pack is empty" in line for line in s.report)


def test_no_monster_no_stage_three(game, box):
    """'If, in later rounds, the Japanese or British tokens land back on their starting spaces ... no monster'."""
    s = game.start(FOUR)
    s = at(s, japanese=len(box.tracks["japanese"]) - 1)
    s = play_until(game, s, lambda x: x.stage == 2)
    assert s.monster.surface is None
    s = game.apply(s, Advance())
    assert s.stage == 6  # stages three, four and five ran by themselves


# -- stage four -------------------------------------------------------------------------------

def win_check(game, box, setup, **cards):
    """Stage three of round 1, everyone covering nothing, with the given cards already kept."""
    s = game.start(setup)
    for name, values in cards.items():
        s = setx(s, name, cards=tuple(Card("cage", v, 0) for v in values))
    s = stage_two_at(game, box, s, "D", "3", "b")
    s = game.apply(s, Advance())
    return play_until(game, s, lambda x: x.stage != 3)


def test_reaching_the_target_wins(game, box):
    """'collecting evidence cards totalling 750 points' (house reading: 750 exactly is enough; the
    setting win_rule = 'exceed' follows stage four's 'over 750' instead)."""
    s = win_check(game, box, FOUR, british=[300, 300, 150])
    assert s.step is Step.OVER and s.outcome.winner == "british"
    s = win_check(game, box, NewGame(4, FOUR.expeditions, win_rule="exceed"), british=[300, 300, 150])
    assert s.step is not Step.OVER
    s = win_check(game, box, NewGame(4, FOUR.expeditions, win_rule="exceed"), british=[300, 300, 155])
    assert s.outcome.winner == "british"


def test_the_highest_total_wins_then_the_highest_card(game, box):
    """'If more than one player has attained more than 750 points ... the highest pointed player wins. If
    points are equal, the player with the highest pointed card wins.'"""
    s = win_check(game, box, FOUR, british=[400, 400], american=[500, 250])
    assert s.outcome.winner == "british"  # 800 beats 750
    s = win_check(game, box, FOUR, british=[400, 400], american=[450, 350])
    assert s.outcome.winner == "american"  # 800 each; 450 beats 400


def test_a_complete_tie_plays_an_additional_round(game, box):
    """'If there is still no winner then an additional round is played to decide the matter.'"""
    s = win_check(game, box, FOUR, british=[400, 400], american=[400, 400])
    assert s.step is not Step.OVER and any("additional round" in line for line in s.report)


def test_you_cannot_win_while_missing_a_turn(game, box):
    """'You cannot win while missing a turn.'"""
    s = game.start(FOUR)
    s = setx(s, "british", cards=(Card("cage", 800, 0),), missing_turns=1)
    s = stage_two_at(game, box, s, "D", "3", "b")
    s = play_until(game, game.apply(s, Advance()), lambda x: x.stage != 3)
    assert s.step is not Step.OVER


def test_shortened_games_a_lower_target_or_a_fixed_number_of_rounds(game, box):
    """'Games may be shortened by fixing the number of rounds to be played or by reducing the 750 point
    target to 600.'"""
    s = win_check(game, box, NewGame(4, FOUR.expeditions, target=600), british=[600])
    assert s.outcome.winner == "british"
    s = win_check(game, box, NewGame(4, FOUR.expeditions, rounds=1), japanese=[20], american=[35])
    assert s.outcome.winner == "american" and "after the last of 1 rounds" in s.outcome.reason


def test_solitaire_score_is_the_number_of_rounds(game, box):
    """'By keeping a record of the number of rounds needed to prove the monster's existence, a solitary
    player can assess how successful his/her strategies are.'"""
    s = win_check(game, box, NewGame(1, ("british",)), british=[750])
    assert s.outcome.reason.endswith("the solitaire score is 1 rounds")


# -- stage five -------------------------------------------------------------------------------

def test_income_first_time_without_running_costs_then_with_them(game, box):
    """'Each player is due £150 income ... The first time this stage of the game is reached there will be no
    running costs involved so players get the full £150.'"""
    s = give(game.start(FOUR), "british", "sonar", "surface_camera")  # £45 + £10 running costs
    s = to_stage(game, s, 6)
    assert s.expedition("british").cash == 200
    s = to_stage(game, game.apply(s, EndTurn()), 7)
    s = to_stage(game, s, 6)
    assert s.expedition("british").cash == 200 + 150 - 55


def test_costs_over_income_are_paid_and_what_cannot_be_paid_is_borrowed(game, box):
    """'If a player's costs exceed the income due, the player pays the Sponsor the difference.' and 'Any
    amount can be borrowed from the Sponsor to pay debts ... The money plus 50% interest must be repaid
    within four rounds.'"""
    s = game.start(FOUR)
    s = give(s, "british", "cage", "sonar", "sonar", "biological_unit", hex="A1a")  # £20+45+45+40 = £150
    s = give(s, "british", "underwater_camera", "underwater_camera")  # + £60 = £210
    s = setx(s, "british", cash=40)
    s = setx(s, "japanese", missing_turns=2)
    s = to_stage(game, s, 6)  # round 1: the full £150
    s = to_stage(game, play_until(game, s, lambda x: x.stage == 7), 6)  # round 2: £150 - £210 = -£60
    b = s.expedition("british")
    assert b.cash == 130 and b.loans == ()
    s = setx(s, "british", cash=10)
    s = to_stage(game, play_until(game, s, lambda x: x.stage == 7), 6)  # round 3: owes £60, has £10
    b = s.expedition("british")
    assert b.cash == 0 and b.loans == (Loan("sponsor", 75, 3 + 4, 50),)
    assert any("borrows £50 from the Sponsor" in line for line in s.report)
    assert s.expedition("japanese").cash > 50  # 'PLAYERS MISSING TURNS STILL RECEIVE INCOME AND PAY COSTS.'


def test_a_sponsor_loan_not_repaid_within_four_rounds_puts_the_expedition_out(game, box):
    """'Failure to repay in this time puts you out of the game.'"""
    s = setx(game.start(FOUR), "british", loans=(Loan("sponsor", 999, 1, 666),), cash=0)
    s = to_stage(game, s, 7)
    assert s.expedition("british").out is None  # stage six of the fourth round was the last chance
    s = game.apply(s, Advance())  # stage eight
    assert "BRITISH has not repaid the Sponsor loan within four rounds and is out of the game." in s.report
    assert "british" not in s.playing
    cash = s.expedition("british").cash
    s = to_stage(game, s, 6)
    turns = []
    while s.stage == 6:
        turns.append(game.purchaser(s))
        s = game.apply(s, EndTurn())
    assert "british" not in turns and s.expedition("british").cash == cash  # no income, no turn


def test_repaying_the_sponsor(game, box):
    s = setx(game.start(FOUR), "british", loans=(Loan("sponsor", 75, 5, 50),))
    s = purchase_turn(game, s, "british")
    cash = s.expedition("british").cash
    s = game.apply(s, RepayLoan(25))
    assert s.expedition("british").loans == (Loan("sponsor", 50, 5, 50),)
    s = game.apply(s, RepayLoan(50))
    assert s.expedition("british").loans == () and s.expedition("british").cash == cash - 75
    with pytest.raises(IllegalAction, match="owes the Sponsor nothing"):
        game.apply(s, RepayLoan(5))


# -- stage six --------------------------------------------------------------------------------

def test_one_piece_per_turn_and_no_refund_on_return(game, box):
    """'You CANNOT buy more than ONE piece of equipment in any turn.' 'There is NO REFUND of purchase costs.'"""
    s = purchase_turn(game, game.start(FOUR), "independent")
    s = game.apply(s, Buy("surface_camera"))
    assert s.expedition("independent").cash == 200 - 40
    with pytest.raises(IllegalAction, match="already bought a piece this turn"):
        game.apply(s, Buy("surface_camera"))
    s = game.apply(s, Return(pieces(s, "independent", "surface_camera")[0]))
    assert s.expedition("independent").cash == 160


def test_no_buying_while_missing_a_turn_but_returning_is_allowed(game, box):
    """'YOU CANNOT BUY EQUIPMENT WHILE MISSING A TURN. You may, however, return equipment while missing a turn.'"""
    s = give(setx(game.start(FOUR), "british", missing_turns=2), "british", "surface_camera")
    s = purchase_turn(game, s, "british")
    with pytest.raises(IllegalAction, match="missing a turn"):
        game.apply(s, Buy("surface_camera"))
    s = game.apply(s, Return(pieces(s, "british", "surface_camera")[0]))
    assert pieces(s, "british", "surface_camera") == []


def test_underwater_equipment_needs_all_three_surface_cameras(game, box):
    """'No player can buy underwater equipment until they have ALL THREE surface cameras positioned'."""
    s = give(setx(game.start(FOUR), "british", cash=1000), "british", "surface_camera", "surface_camera")
    s = purchase_turn(game, s, "british")
    with pytest.raises(IllegalAction) as err:
        game.apply(s, Buy("underwater_camera"))
    assert err.value.reason == "BRITISH cannot buy a underwater camera yet: all three surface cameras must be in use first"
    s = game.apply(s, Buy("surface_camera"))
    s = purchase_turn(game, play_until(game, s, lambda x: x.round == 2), "british")
    s = game.apply(s, Buy("underwater_camera"))
    assert pieces(s, "british", "underwater_camera")


def test_each_colours_stock_limits_purchases(game, box):
    s = give(setx(game.start(FOUR), "british", cash=1000), "british", *["surface_camera"] * 3)
    s = purchase_turn(game, s, "british")
    with pytest.raises(IllegalAction, match="no surface camera transparency left"):
        game.apply(s, Buy("surface_camera"))


def test_returned_equipment_may_not_be_bought_again_in_the_following_round(game, box):
    """'[Equipment may NOT be re-purchased after being returned during the following round (turn).]' and
    'Equipment can be repositioned by returning it during one round and re-purchasing it two rounds later.'"""
    s = give(setx(game.start(FOUR), "british", cash=1000), "british", "surface_camera")
    s = purchase_turn(game, s, "british")
    s = game.apply(s, Return(pieces(s, "british", "surface_camera")[0]))
    with pytest.raises(IllegalAction, match="may buy one again from round 3"):
        game.apply(s, Buy("surface_camera"))
    s = purchase_turn(game, play_until(game, s, lambda x: x.round == 2), "british")
    with pytest.raises(IllegalAction, match="from round 3"):
        game.apply(s, Buy("surface_camera"))
    s = purchase_turn(game, play_until(game, s, lambda x: x.round == 3), "british")
    assert game.apply(s, Buy("surface_camera"))


@pytest.mark.parametrize("equipment", ["cage", "eye_witness"])
def test_the_cage_and_eye_witnesses_are_never_removed(game, box, equipment):
    """'except the cage and eye-witnesses which, once in position, must never be removed.'"""
    s = give(game.start(FOUR), "british", equipment, hex="C2c")
    s = purchase_turn(game, s, "british")
    with pytest.raises(IllegalAction, match="must never be removed"):
        game.apply(s, Return(pieces(s, "british", equipment)[-1]))


def test_surface_cameras_stay_while_underwater_equipment_other_than_the_cage_is_in_use(game, box):
    """'Surface cameras cannot be returned until all that player's underwater equipment (except the cage)
    has been returned.'"""
    s = give(game.start(FOUR), "british", "surface_camera", "sonar", "cage", hex="C2c")
    s = purchase_turn(game, s, "british")
    camera = pieces(s, "british", "surface_camera")[0]
    with pytest.raises(IllegalAction, match="cannot return a surface camera"):
        game.apply(s, Return(camera))
    s = game.apply(s, Return(pieces(s, "british", "sonar")[0]))
    s = game.apply(s, Return(camera))  # only the cage is left underwater
    assert pieces(s, "british", "surface_camera") == []


def test_the_cage_is_placed_on_one_recorded_hexagon(game, box):
    """'When cages are placed the sponsor must keep a note of the hexagon reference on the tally sheet.'"""
    s = give(setx(game.start(FOUR), "british", cash=1000), "british", *["surface_camera"] * 3)
    s = purchase_turn(game, s, "british")
    with pytest.raises(IllegalAction, match="which hexagon"):
        game.apply(s, Buy("cage"))
    with pytest.raises(IllegalAction, match="not a loch hexagon"):
        game.apply(s, Buy("cage", "Z9z"))
    s = game.apply(s, Buy("cage", "E4d"))
    assert s.expedition("british").pieces[-1].hex == "E4d"
    assert game.view(s)["expeditions"][2]["pieces"][-1]["hex"] == "E4d"


def test_a_purchase_needs_the_money(game, box):
    s = give(setx(game.start(FOUR), "british", cash=1000), "british", *["surface_camera"] * 3)
    s = purchase_turn(game, setx(s, "british", cash=1000), "british")
    s = setx(s, "british", cash=100)
    with pytest.raises(IllegalAction, match="costs £180 and BRITISH has £100"):
        game.apply(s, Buy("sonar"))


def test_purchase_options_say_why_they_are_refused(game, box):
    s = purchase_turn(game, game.start(FOUR), "independent")
    options = {o["equipment"]: o for o in game.legal_actions(s)[0]["options"]}
    assert options["surface_camera"]["ok"] is True
    assert "all three surface cameras" in options["sonar"]["why"]
    assert "no eye witness transparency left" in options["eye_witness"]["why"]


# -- stages seven to nine ---------------------------------------------------------------------

def test_the_sponsor_reads_out_the_totals(game, box):
    """Stage seven: 'The Sponsor reads out the total points for each player.'"""
    s = setx(game.start(FOUR), "british", cards=(Card("sonar", 60, 0),))
    s = to_stage(game, s, 7)
    assert "BRITISH 60" in game.prompt(s) and "reads out the totals" in game.prompt(s)


@pytest.mark.parametrize("turns", [1, 2])
def test_missed_turn_cards_return_at_stage_eight(game, box, turns):
    """'the missed turn finishes in stage eight unless the card states two missed turns, in which case the
    card is kept until the second time stage eight is reached.'"""
    card = card_of(box, "miss_turns", turns=turns)
    s = draw(game, box, game.start(FOUR), "independent", card)
    assert s.expedition("independent").missing_turns == turns and card in s.expedition("independent").held
    s = play_until(game, s, lambda x: x.round == 2)
    assert s.expedition("independent").missing_turns == turns - 1
    s = play_until(game, s, lambda x: x.round == 3)
    assert s.expedition("independent").missing_turns == 0 and card not in s.expedition("independent").held


def holding_trumps(game, box, *names, part="row"):
    s = game.start(FOUR)
    trumps = [c.id for c in box.logistics if c.kind == "trump" and c.get("part") == part]
    for name, card in zip(names, trumps):
        s = setx(s, name, held=(card,))
    return to_stage(game, s, 9, Step.TRUMP)


def test_one_trump_card_sets_part_of_next_rounds_monster(game, box):
    """'PLAYERS WHO HOLD TRUMP CARDS SHOULD PLAY THEM NOW IF THEY WISH TO INFLUENCE THE MONSTER'S POSITION IN
    THE NEXT ROUND.'"""
    s = holding_trumps(game, box, "american")
    with pytest.raises(IllegalAction, match="holds no trump card"):
        game.apply(s, ClaimTrump("british"))
    s = game.apply(game.apply(s, ClaimTrump("american")), Advance())
    assert s.step is Step.TRUMP_PLAY
    with pytest.raises(IllegalAction, match="small letter must be one of"):
        game.apply(s, PlayTrump("Q"))
    s = game.apply(s, PlayTrump("f"))
    assert s.round == 2 and s.expedition("american").held == ()
    s = stage_two_at(game, box, s, "B", "2", "a") if False else play_until(game, s, lambda x: x.stage == 2)
    if s.monster.surface:
        assert s.monster.surface.endswith("f") and "AMERICAN played a trump card" in s.monster.trump


def test_only_one_trump_per_round_a_die_off_decides(game, box):
    """'ONLY ONE PLAYER MAY PLAY A TRUMP CARD IN ANY ROUND. IF NECESSARY THROW DICE TO CHOOSE WHO CAN PLAY THEIR
    CARD AND WHO MUST WAIT.'"""
    s = holding_trumps(game, box, "japanese", "british")
    s = game.apply(game.apply(s, ClaimTrump("japanese")), ClaimTrump("british"))
    s = game.apply(s, Advance())
    assert s.step is Step.TRUMP_DIE_OFF and "JAPANESE, throw the die" in game.prompt(s)
    s = game.apply(game.apply(s, Throw(4)), Throw(4))
    assert s.step is Step.TRUMP_DIE_OFF and any("throw again" in line for line in s.report)
    s = game.apply(game.apply(s, Throw(2)), Throw(5))
    assert s.step is Step.TRUMP_PLAY and s.claims == ("british",)
    s = game.apply(s, PlayTrump("a"))
    assert s.expedition("japanese").held and not s.expedition("british").held  # the loser waits


# -- LOGISTICS cards --------------------------------------------------------------------------

@pytest.mark.parametrize("kind,match,cash", [
    ("receive", {"amount": 50}, 100),
    ("pay", {"amount": 20}, 30),
    ("pay_per_piece", {"amount": 5}, 35),  # three eye witnesses in use
    ("nothing", {}, 50),
])
def test_money_cards(game, box, kind, match, cash):
    """'take, and immediately act upon, a LOGISTICS card'."""
    s = draw(game, box, game.start(FOUR), "independent", card_of(box, kind, **match))
    assert s.expedition("independent").cash == cash
    assert s.token_to_throw == "japanese"


def test_a_card_that_cannot_be_paid_is_a_sponsor_loan(game, box):
    s = draw(game, box, setx(game.start(FOUR), "independent", cash=10), "independent", card_of(box, "pay", amount=60))
    e = s.expedition("independent")
    assert e.cash == 0 and e.loans == (Loan("sponsor", 75, 5, 50),)


def test_a_gamble_asks_for_a_further_throw(game, box):
    """'N.B. The next player does not start this stage until after the previous player's LOGISTICS card has
    been read and dealt with, as some involve further dice throws.'"""
    card = card_of(box, "gamble", win=100)
    s = draw(game, box, game.start(FOUR), "independent", card)
    assert s.step is Step.LOGISTICS_THROW and s.token_to_throw is None
    won = game.apply(s, Throw(6))
    lost = game.apply(s, Throw(1))
    assert won.expedition("independent").cash == 150 and lost.expedition("independent").cash == 30
    assert won.token_to_throw == "japanese"


def test_the_bank_loan_card_is_repaid_at_stage_five_when_due(game, box):
    card = box.card(card_of(box, "bank_loan"))
    s = draw(game, box, game.start(FOUR), "independent", card.id)
    e = s.expedition("independent")
    assert e.cash == 50 + card.get("amount") and e.loans[0].kind == "bank"
    s = play_until(game, s, lambda x: x.round == 1 + card.get("rounds") and x.stage == 6)
    assert s.expedition("independent").loans == ()


def test_losing_equipment_and_an_evidence_card(game, box):
    s = give(game.start(FOUR), "independent", "surface_camera")
    s = draw(game, box, s, "independent", card_of(box, "lose_equipment", equipment="surface_camera"))
    assert pieces(s, "independent", "surface_camera") == []
    s = draw(game, box, game.start(FOUR), "independent", card_of(box, "evidence"))
    assert s.step is Step.CARD_EVIDENCE and "EYE WITNESS EVIDENCE" in game.prompt(s)
    s = game.apply(s, EvidenceCard(60))
    assert s.expedition("independent").points == 60 and s.token_to_throw == "japanese"


def test_unknown_or_held_cards_are_refused(game, box):
    s = game.start(FOUR)
    s = play_until(game, s, lambda x: x.token_to_throw == "independent")
    star = index_of(box.tracks["independent"], lambda sp: sp.star)
    s = game.apply(at(s, independent=star - 1), Throw(1))
    with pytest.raises(IllegalAction, match="no LOGISTICS card 'X99'"):
        game.apply(s, LogisticsDealt("X99"))
    trump = card_of(box, "trump")
    with pytest.raises(IllegalAction, match="held by an expedition"):
        game.apply(setx(s, "british", held=(trump,)), LogisticsDealt(trump))


# -- variants ---------------------------------------------------------------------------------

def test_junior_rules(game, box):
    """'Issue each child with three eye-witness transparencies, one surface camera, one cage, one sonar, one
    underwater camera and a biological transparency ... Issue each child with £500. Any child with less than
    £100 after a round is given another £500 ... No equipment is purchased and no running costs are paid ...
    The winner is the first child to get 400 points.'"""
    s = game.start(NewGame(2, ("british", "american"), variant="junior"))
    kit = sorted(p.equipment for p in s.expedition("british").pieces)
    assert kit == sorted(["eye_witness"] * 3 + ["surface_camera", "cage", "sonar", "underwater_camera", "biological_unit"])
    assert s.expedition("british").cash == 500 and s.seating.target == 400
    s = setx(s, "british", cash=60)
    s = play_until(game, s, lambda x: x.round == 2)
    assert s.expedition("british").cash == 560 and s.expedition("american").cash == 500
    assert not any(x for x in [s.stage == 6])


def test_introductory_rules_order_eyewitness_cards_and_no_missed_turns(game, box):
    """Special Introductory Rules: income (except first round) and purchases first, then evidence, then the
    throws; 'EYEWITNESS EVIDENCE CARD taken and retained for a throw of 5 or 6'; 'Do not miss turns when
    instructed to do so'; 'Eye Witness transparencies are not used'."""
    s = game.start(NewGame(4, FOUR.expeditions, variant="introductory"))
    assert s.stage == 6 and s.step is Step.PURCHASE  # stage five ran: no income the first round
    assert s.expedition("independent").cash == 50 and s.expedition("independent").pieces == ()
    s = play_until(game, s, lambda x: x.stage == 1)
    s = game.apply(s, Throw(5))
    assert s.step is Step.CARD_EVIDENCE and "EYE WITNESS EVIDENCE" in game.prompt(s)
    s = game.apply(s, EvidenceCard(10))
    s = draw(game, box, s, "japanese", card_of(box, "miss_turns", turns=2))
    assert s.expedition("japanese").missing_turns == 0


def test_introductory_rules_repurchase_in_the_next_round(game, box):
    """'To move equipment, it is necessary to remove the transparency in one round before repurchasing in the
    next.'"""
    s = game.start(NewGame(4, FOUR.expeditions, variant="introductory"))
    s = give(s, "independent", "surface_camera")
    s = game.apply(s, Return(pieces(s, "independent", "surface_camera")[0]))
    s = play_until(game, s, lambda x: x.round == 2 and x.step is Step.PURCHASE)
    assert game.apply(s, Buy("surface_camera"))


def test_an_illegal_action_changes_nothing(game, box):
    s = purchase_turn(game, game.start(FOUR), "independent")
    before = s
    for bad in (Buy("sonar"), Return(1), RepayLoan(5), Advance(), Throw(3), Coverage(()), EvidenceCard(5),
                PlayTrump("A"), ClaimTrump("british")):
        with pytest.raises(IllegalAction):
            game.apply(s, bad)
    assert s == before
