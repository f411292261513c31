"""Nessie Hunt stages one and two, player counts and refusals. Each test quotes the rulebook passage
(seeds/000_5221d2090e374035.txt) it checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.errors import IllegalAction
from companion.games.nessie_hunt import Advance, LogisticsDealt, NewGame, Step, Throw
from companion.games.nessie_hunt.tracks import EXPEDITIONS
from tests.nessie_helpers import give, setx

FOUR = NewGame(4, ("independent", "japanese", "british", "american"), "independent")
COMPANION = NewGame(4, ("independent", "japanese", "british", "american"))  # the companion is Sponsor


def index_of(track, predicate):
    return next(s.index for s in track.spaces if predicate(s))


def at(state, **spaces):
    """The state with some leaders moved to given spaces (a position on the board, set up by hand)."""
    positions = list(state.positions)
    for expedition, space in spaces.items():
        positions[EXPEDITIONS.index(expedition)] = space
    return replace(state, positions=tuple(positions))


def throw_all(game, state, values):
    for v in values:
        state = game.apply(state, Throw(v))
        while state.step is Step.LOGISTICS:
            state = game.apply(state, LogisticsDealt())
    return state


# -- setup and player counts ------------------------------------------------------------------

def test_four_players_throw_in_seating_order(game):
    """'INDEPENDENT always plays first in each stage/step with the others following in a clockwise
    order' and 'The seating order should be clockwise - Independent, Japanese, British and American.'"""
    s = game.start(FOUR)
    order = []
    while s.stage == 1:
        order.append(s.token_to_throw)
        s = throw_all(game, s, [1])
    assert order == ["independent", "japanese", "british", "american"]


def test_three_players_independent_takes_no_part(game):
    """'INDEPENDENT takes no part in the game and the role of sponsor is taken by the AMERICAN, BRITISH
    or JAPANESE player. The green equipment and green expedition leader are not used.'"""
    s = game.start(NewGame(3, ("american", "japanese", "british"), "british"))
    assert s.seating.tokens == ("japanese", "british", "american")
    assert s.seating.expeditions == ("japanese", "british", "american")  # seating order, whatever was sent
    assert s.equipment_of("independent") == ()
    with pytest.raises(IllegalAction, match="INDEPENDENT takes no part"):
        game.start(NewGame(3, ("independent", "japanese", "british"), "british"))


def test_two_players_the_banker_throws_for_the_third_token(game):
    """'the leader of the other non-participating expedition must be placed on its starting position
    ... the other player acts as banker and throws the dice to move the non-participating token'."""
    s = game.start(NewGame(2, ("british", "american"), "american"))
    assert s.seating.tokens == ("japanese", "british", "american")
    assert s.seating.thrower("japanese") == "american"
    assert game.prompt(s) == "Stage one, round 1. AMERICAN: throw the die for the JAPANESE token."
    assert s.equipment_of("japanese") == ()  # 'No money is issued to the non-participating expedition'


def test_solitaire_the_player_throws_for_all_three_tokens(game):
    """'The AMERICAN, BRITISH and JAPANESE tokens take a full part in the game ... The player must throw
    the dice for each of the other two tokens in strict sequence'."""
    s = game.start(NewGame(1, ("japanese",), "japanese"))
    assert s.seating.tokens == ("japanese", "british", "american")
    assert {s.seating.thrower(t) for t in s.seating.tokens} == {"japanese"}


def test_five_players_the_fifth_is_sponsor(game):
    """'The fifth player takes the role of sponsor'."""
    s = game.start(NewGame(5, FOUR.expeditions, "fifth-player"))
    assert s.seating.tokens == EXPEDITIONS
    with pytest.raises(IllegalAction, match="Sponsor is fifth-player"):
        game.start(NewGame(5, FOUR.expeditions, "independent"))


def test_the_companion_can_always_be_the_sponsor(game):
    """Issue 3: 'the companion is always the Sponsor, so nobody has to be'."""
    for players, exps in ((4, FOUR.expeditions), (5, FOUR.expeditions), (3, ("japanese", "british", "american")),
                          (2, ("british", "american")), (1, ("japanese",))):
        assert game.start(NewGame(players, exps)).seating.sponsor == "companion"


@pytest.mark.parametrize("setup,match", [
    (NewGame(4, ("japanese", "british", "american"), "independent"), "all four"),
    (NewGame(4, FOUR.expeditions, "american"), "Sponsor is independent"),
    (NewGame(6, FOUR.expeditions, "independent"), "1 \\(solitaire\\) to 5"),
    (NewGame(0, (), "nobody"), "1 \\(solitaire\\) to 5"),
    (NewGame(2, ("british",), "british"), "need 2"),
    (NewGame(2, ("british", "american"), "japanese"), "Sponsor must be one of the players"),
    (NewGame(4, FOUR.expeditions, "american"), "Sponsor is independent"),
    (NewGame(2, ("british", "british"), "british"), "once"),
    (NewGame(4, FOUR.expeditions, "independent", variant="advanced"), "not available"),
])
def test_impossible_setups_are_refused(game, setup, match):
    with pytest.raises(IllegalAction, match=match):
        game.start(setup)


def test_every_expedition_starts_on_its_named_space_with_three_eye_witnesses(game, box):
    """'Place the ... Expedition Leader tokens on the named squares' and 'The Sponsor issues three
    eye-witness transparencies to each player'."""
    s = game.start(FOUR)
    for e in EXPEDITIONS:
        assert box.tracks[e].spaces[s.position(e)].start == e.upper()
        assert s.equipment_of(e) == ("eye_witness",) * 3


# -- stage one --------------------------------------------------------------------------------

def test_leaders_advance_by_the_throw_and_wrap_round_the_loop(game, box):
    """'Advance your Expedition Leader around the path in an anti-clockwise direction'."""
    n = len(box.tracks["independent"])
    s = at(game.start(FOUR), independent=n - 2)
    s = game.apply(s, Throw(5))
    assert s.position("independent") == 3  # n-2 + 5 wraps past the start
    assert s.last_throw.value == 5 and s.last_throw.from_space == n - 2


def test_a_star_asks_for_a_logistics_card_and_the_next_player_waits(game, box):
    """'If you land on a space with a large '*' then take, and immediately act upon, a LOGISTICS card'
    and 'The next player does not start this stage until after the previous player's LOGISTICS card has
    been read and dealt with'."""
    star = index_of(box.tracks["independent"], lambda sp: sp.star)
    s = at(game.start(FOUR), independent=star - 2)
    s = game.apply(s, Throw(2))
    assert s.step is Step.LOGISTICS
    legal = game.legal_actions(s)
    assert [(a["type"], a["by"]) for a in legal] == [("logistics-dealt", "independent")]
    assert len(legal[0]["cards"]) == len(box.logistics)  # every card is in the pack
    with pytest.raises(IllegalAction, match="no throw is due"):
        game.apply(s, Throw(3))
    s = game.apply(s, LogisticsDealt("R19"))  # "Bad weather all week": no effect
    assert s.step is Step.THROW and s.token_to_throw == "japanese" and s.logistics_taken == 1


def test_no_logistics_card_while_missing_a_turn_but_the_throw_still_happens(game, box):
    """'Throw the dice, EVEN IF YOU ARE CURRENTLY MISSING A TURN' ... 'NO LOGISTICS CARD IS TAKEN IF YOU
    ARE ALREADY MISSING A TURN'."""
    star = index_of(box.tracks["independent"], lambda sp: sp.star)
    s = setx(at(game.start(FOUR), independent=star - 1), "independent", missing_turns=1)
    assert "even though missing a turn" in game.prompt(s)
    s = game.apply(s, Throw(1))
    assert s.position("independent") == star
    assert s.step is Step.THROW and s.token_to_throw == "japanese"


def test_a_dummy_token_on_a_star_takes_no_logistics_card(game, box):
    """Two players: 'If the non-participating expedition leader lands on an asterisk NO LOGISTICS CARD
    IS TAKEN.'"""
    star = index_of(box.tracks["japanese"], lambda sp: sp.star)
    s = at(game.start(NewGame(2, ("british", "american"), "american")), japanese=star - 1)
    s = game.apply(s, Throw(1))
    assert s.step is Step.THROW and s.token_to_throw == "british"


def test_solitaire_only_the_players_own_token_takes_logistics(game, box):
    """Solitaire: 'no Logistics cards are taken unless the player's own token lands on an asterisked square'."""
    s = game.start(NewGame(1, ("british",), "british"))
    j_star = index_of(box.tracks["japanese"], lambda sp: sp.star)
    b_star = index_of(box.tracks["british"], lambda sp: sp.star)
    s = at(s, japanese=j_star - 1, british=b_star - 1)
    s = game.apply(s, Throw(1))
    assert s.step is Step.THROW  # the Japanese token: no card
    s = game.apply(s, Throw(1))
    assert s.step is Step.LOGISTICS  # the player's own British token


# -- stage two --------------------------------------------------------------------------------

def play_to_stage_two(game, box, sector, column, row, setup=FOUR, underwater=False):
    """Leaders set one throw of 1 short of spaces hiding the given symbols, then stage one played."""
    s = game.start(setup)
    want = {"american": sector, "japanese": column, "british": row}
    spaces = {}
    for e, sym in want.items():
        spaces[e] = index_of(box.tracks[e], lambda sp, sym=sym: sp.symbol == sym and sp.index > 1) - 1
    s = at(s, **spaces)
    if underwater:
        s = give(s, "british", "sonar")
    s = throw_all(game, s, [1] * len(s.seating.tokens))
    assert s.stage == 2 and s.step is Step.MONSTER
    return s


def test_the_three_tokens_spell_the_monsters_hex(game, box):
    """'Look beneath the American token and find a capital letter ... the Japanese token ... a number ...
    the British token ... a lower case (small) letter ... the combination represents a hexagon'."""
    s = play_to_stage_two(game, box, "D", "3", "b")
    assert s.monster.surface == "D3b"
    assert "places the Head and Neck on D3b" in game.prompt(s)


def test_submerged_monsters_only_when_underwater_equipment_is_in_use(game, box):
    """'If no players have underwater equipment in use ... then go directly to stage three' and step 4."""
    s = play_to_stage_two(game, box, "D", "3", "b")
    assert s.monster.submerged_in_play is False and s.monster.placed_submerged == {}
    s = play_to_stage_two(game, box, "D", "3", "b", underwater=True)
    assert s.monster.placed_submerged == {"left": "C5b", "right": "E1b", "down": "D3f"}
    assert "Submerged monsters on C5b, E1b, D3f" in game.prompt(s)


def test_no_letter_no_monster(game, box):
    """'No letter, no monster!' (introductory rules): the American token on a blank space."""
    s = game.start(FOUR)
    blank = index_of(box.tracks["american"], lambda sp: sp.symbol is None and not sp.is_start)
    s = at(s, american=blank - 1, japanese=2, british=2)
    s = throw_all(game, s, [1, 1, 1, 1])
    assert s.monster.surface is None and "no letter under the AMERICAN token" in s.monster.reason


@pytest.mark.parametrize("token", ["japanese", "british"])
def test_japanese_or_british_back_on_their_start_space_no_monster(game, box, token):
    """'If, in later rounds, the Japanese or British tokens land back on their starting spaces ... no
    monster will appear in that round.'"""
    s = game.start(FOUR)
    n = len(box.tracks[token])
    others = {"american": 1, "japanese": 1, "british": 1}
    others[token] = n - 1
    s = at(s, **others)
    s = throw_all(game, s, [1, 1, 1, 1])
    assert s.position(token) == 0
    assert s.monster.surface is None and f"the {token.upper()} token is on its starting space" == s.monster.reason


def test_two_player_dummy_still_locates_the_monster(game, box):
    """'The reason that the non-participating ... token needs to move ... is purely to allow a location
    for the monster to be determined.'"""
    s = play_to_stage_two(game, box, "H", "6", "f", setup=NewGame(2, ("british", "american"), "american"))
    assert s.monster.surface == "H6f"


def test_after_stage_two_comes_stage_three(game, box):
    s = play_to_stage_two(game, box, "A", "1", "a")
    s = game.apply(s, Advance())
    assert (s.round, s.stage, s.step) == (1, 3, Step.COVERAGE)
    assert game.prompt(s).startswith("Stage three, round 1. INDEPENDENT: does any part of your transparencies cover")


# -- refusals ---------------------------------------------------------------------------------

def test_actions_out_of_turn_are_refused_and_change_nothing(game, box):
    s = game.start(FOUR)
    with pytest.raises(IllegalAction, match="not yet"):
        game.apply(s, Advance())
    with pytest.raises(IllegalAction, match="no LOGISTICS card"):
        game.apply(s, LogisticsDealt())
    with pytest.raises(IllegalAction, match="already under way"):
        game.apply(s, FOUR)
    with pytest.raises(IllegalAction, match="set one up"):
        game.apply(None, Throw(3))
    m = play_to_stage_two(game, box, "B", "2", "c")
    with pytest.raises(IllegalAction, match="no throw is due"):
        game.apply(m, Throw(4))
    assert m == play_to_stage_two(game, box, "B", "2", "c")  # frozen: nothing changed


def test_legal_actions_are_exactly_what_apply_accepts(game, box):
    """The dashboard draws its buttons from legal_actions, so every listed move must be accepted and
    every other kind refused (through a whole game of dull moves)."""
    from tests.nessie_helpers import default_action

    probes = [Throw(1), Throw(6), LogisticsDealt(), Advance()]
    s = game.start(FOUR)
    for _ in range(150):
        legal = {a["type"] for a in game.legal_actions(s)}
        for p in probes:
            if p.type in legal:
                game.apply(s, p)
            else:
                with pytest.raises(IllegalAction):
                    game.apply(s, p)
        s = game.apply(s, default_action(game, s))
