"""The humans-versus-monsters skirmish. Each scenario quotes the Russian rulebook passage
(seeds/004_27c800e34d0c540b.txt) it checks, with an English reading."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BoxProfileError, IllegalAction, MalformedAction
from companion.games.monster_ambush import (Ambush, EndActions, EndTurn, Grow, HumansDone, Killed, Move, NewGame,
                                            NewStack, Retreat, action_from_json, action_to_json, human_strength,
                                            load_box, make_game, monster_strength, parse_box)

GAME = make_game()
SHIP = GAME.box.map.ship


def run(*actions, setup=NewGame()):
    s = GAME.apply(None, setup)
    for a in actions:
        s = GAME.apply(s, a)
    return s


def test_a_new_stack_of_two_at_a_path_end_or_the_ship():
    """'Возьмите 2 жетона монстров и поместите их на окончание любой тропинки ... Кроме того, новая стопка всегда
    может создаваться на гексе корабля.' (Take 2 monster tokens and put them on the end of any path; a new stack can
    also always be made on the ship's hex.)"""
    end = GAME.box.map.path_ends[0]
    s = run(NewStack(end), NewStack(SHIP))
    assert s.at(end) == 2 and s.at(SHIP) == 2 and s.pool == 14
    with pytest.raises(IllegalAction, match="neither the end of a path") as exc:
        GAME.apply(s, NewStack("E4"))
    assert "тропинки" in exc.value.rule


def test_grow_a_stack_by_two_and_only_three_actions():
    """'Возьмите 2 жетона монстров и добавьте их в стопку монстров.' and 'каждый монстр может выполнить 3 (или
    меньше) действия' (take 2 tokens and add them to a stack; each monster may perform 3 or fewer actions)."""
    s = run(NewStack(SHIP), Grow(SHIP), Grow(SHIP))
    assert s.at(SHIP) == 6 and s.actions_left == 0
    with pytest.raises(IllegalAction, match="used their 3 actions"):
        GAME.apply(s, Grow(SHIP))
    assert run(NewStack(SHIP), setup=NewGame(actions_per_turn=1)).actions_left == 0


def test_a_move_loses_one_token_per_hex_and_merges():
    """'Перемещать стопку можно на сколько угодно гексов, но каждый пройденный гекс уменьшает стопку монстров на 1.
    Если стопка перемещается на гекс, где уже есть монстры, все они объединяются в одну стопку.' (A stack may move
    any number of hexes, but every hex passed takes one monster off; moving onto monsters merges them.)"""
    s = run(NewStack(SHIP), Grow(SHIP), Move(SHIP, "E4"))  # E1 -> E4: three hexes
    assert s.at("E4") == 1 and s.at(SHIP) == 0 and s.pool == 17
    s = run(NewStack("C1"), NewStack(SHIP), Move("C1", "D1"))  # C1 -> D1 next to E1 ... one hex
    assert GAME.box.map.distance("C1", "D1") == 1 and s.at("D1") == 1
    s = run(NewStack("C1"), NewStack(SHIP), Grow(SHIP))
    s = GAME.apply(GAME.apply(GAME.apply(s, EndActions()), EndTurn()), HumansDone())
    s = GAME.apply(s, Move(SHIP, "C1"))  # two hexes: 4 - 2 = 2 arrive and join the 2 there
    assert GAME.box.map.distance(SHIP, "C1") == 2 and s.stacks == (("C1", 4),)
    with pytest.raises(IllegalAction, match="whole stack"):
        run(NewStack(SHIP), Move(SHIP, "E3"))


def test_the_pool_of_eighteen():
    """'18 жетонов монстров – это предел. Если все жетоны уже в джунглях, добавлять новых монстров в игру нельзя,
    пока кто-то из уже выложенных на гексы монстров не будет убит.' (18 tokens are the limit; when all are out, no
    new monsters until one is killed.)"""
    s = run(NewStack("A2"), Grow("A2"), Grow("A2"))
    for _ in range(2):
        s = GAME.apply(GAME.apply(GAME.apply(s, EndActions()), EndTurn()), HumansDone())
        s = GAME.apply(GAME.apply(s, NewStack(GAME.box.map.path_ends[1 + _])), Grow(GAME.box.map.path_ends[1 + _]))
        s = GAME.apply(s, Grow(GAME.box.map.path_ends[1 + _]))
    assert s.pool == 0 and s.on_board == 18
    s = GAME.apply(GAME.apply(GAME.apply(s, EndActions()), EndTurn()), HumansDone())
    with pytest.raises(IllegalAction, match="0 monster token") as exc:
        GAME.apply(s, NewStack(SHIP))
    assert "18" in exc.value.rule
    s = GAME.apply(GAME.apply(GAME.apply(s, EndActions()), EndTurn()), Killed("A2", 2))
    s = GAME.apply(GAME.apply(s, HumansDone()), NewStack(SHIP))
    assert s.pool == 0 and s.at(SHIP) == 2


def test_stacks_above_six_are_cut_at_the_end_of_the_turn():
    """'Максимальное количество монстров в стопке не ограничено, но если в конце хода их будет больше 6, "лишних"
    придётся убрать.' (No limit during the turn, but more than 6 at the end of the turn must be removed.)"""
    s = run(NewStack(SHIP), Grow(SHIP), Grow(SHIP))
    s = GAME.apply(GAME.apply(GAME.apply(s, EndActions()), EndTurn()), HumansDone())
    s = GAME.apply(s, Grow(SHIP))
    assert s.at(SHIP) == 8  # allowed during the turn
    s = GAME.apply(s, EndTurn())
    assert s.at(SHIP) == 6 and s.trimmed == 2 and s.pool == 12
    assert "2 token(s) over six" in GAME.prompt(s)


def test_monster_strength():
    """'Игрок-монстр кидает 1 кубик. Если он выбрасывает число, равное количеству монстров на гексе, монстры получают
    бонус +1. Таким образом, максимальная сила монстров – 7' (the monster player throws one die; equal to the stack
    size gives +1; so monsters are at most 7)."""
    assert monster_strength(3, 3) == 4 and monster_strength(3, 5) == 3
    assert monster_strength(6, 6) == 7
    assert max(monster_strength(n, d) for n in range(1, 13) for d in range(1, 7)) == 7


def test_human_strength():
    """'Игрок-человек кидает два кубика. Учитывается наибольший результат. Если на гексе находится Сержант, люди
    получают бонус +1. Если засада находится в поле зрения гранатомётчика, люди также получают +1 ... Сила людей может
    равняться также количеству солдат на гексе' (two dice, the higher counts; +1 Sergeant; +1 in a grenadier's view;
    or the number of soldiers on the hex)."""
    assert human_strength((2, 5), 1, False, False) == (5, False)
    assert human_strength((6, 1), 1, True, True) == (8, False)  # 'максимальная сила людей – 8'
    assert human_strength((1, 2), 4, True, False) == (4, True)


@pytest.mark.parametrize("stack,die,dice,soldiers,outcome", [
    (3, 1, (3, 1), 1, "tie"),       # 'Силы равны: ничья. Солдаты отступают на 1 гекс назад.'
    (4, 4, (2, 3), 1, "monsters"),  # 'Монстры сильнее: один солдат убит, а остальные отступают назад на 1 гекс.'
    (2, 5, (6, 1), 1, "humans"),    # 'Люди сильнее: один монстр убит, а остальные отсутпают назад на 1 гекс.'
])
def test_the_three_outcomes(stack, die, dice, soldiers, outcome):
    """Результат засады (the ambush's result): tie, monsters stronger, humans stronger."""
    s = run(NewStack(SHIP), *[Grow(SHIP)] * ((stack + stack % 2 - 2) // 2), setup=NewGame(actions_per_turn=5))
    if stack % 2:
        s = GAME.apply(s, Move(SHIP, "E2"))
    hex_ = s.stacks[0][0]
    n = s.at(hex_)
    s = GAME.apply(s, EndActions())
    s2 = GAME.apply(s, Ambush(hex_, die, dice, soldiers))
    assert s2.last.outcome == outcome
    if outcome == "humans":
        assert s2.at(hex_) == n - 1 and s2.killed == 1 and s2.phase == "retreat"
        s3 = GAME.apply(s2, Retreat(GAME.box.map.neighbours(hex_)[0]))
        assert s3.at(hex_) == 0 and s3.on_board == n - 1 and s3.phase == "ambush"
        with pytest.raises(IllegalAction, match="not next to"):
            GAME.apply(s2, Retreat("I7"))
    else:
        assert s2.at(hex_) == n and s2.phase == "ambush"


def test_each_stack_ambushes_once_and_only_after_the_actions():
    """'После выполнения действий монстров ... могут напасть из засады' and 'Каждая стопка монстров может напасть из
    засады только один раз за ход.' (After the monster actions ...; each stack may ambush only once a turn.)"""
    s = run(NewStack(SHIP), Grow(SHIP))
    with pytest.raises(IllegalAction, match="no ambush now"):
        GAME.apply(s, Ambush(SHIP, 1, (1, 1), 1))
    s = GAME.apply(s, EndActions())
    s = GAME.apply(s, Ambush(SHIP, 1, (6, 6), 1))  # humans win; 3 fall back
    s = GAME.apply(s, Retreat("E2"))
    with pytest.raises(IllegalAction, match="already ambushed") as exc:
        GAME.apply(s, Ambush("E2", 1, (1, 1), 1))
    assert "один раз" in exc.value.rule
    with pytest.raises(IllegalAction, match="no monster actions"):
        GAME.apply(s, Grow("E2"))


def test_refusals_change_nothing_and_malformed_input_is_refused():
    s = run(NewStack(SHIP))
    before = s
    for bad in (Grow("E5"), Move("E5", "E6"), NewStack("Z9"), Retreat("E2"), HumansDone(), Killed(SHIP)):
        with pytest.raises(IllegalAction):
            GAME.apply(s, bad)
    assert s == before
    for data, match in [({"type": "ambush", "hex": "E1", "monster_die": 7, "human_dice": [1, 2], "soldiers": 1}, "1-6"),
                        ({"type": "ambush", "hex": "E1", "monster_die": 2, "human_dice": [1], "soldiers": 1}, "two dice"),
                        ({"type": "ambush", "hex": "E1", "monster_die": 2, "human_dice": [1, 2], "soldiers": 0}, "soldiers"),
                        ({"type": "move", "origin": "E1"}, "missing"),
                        ({"type": "grow", "hex": 5}, "hex"), ({"type": "summon"}, "unknown action")]:
        with pytest.raises(MalformedAction, match=match):
            action_from_json(data)


def test_box_profile_errors():
    import tomllib
    from importlib import resources

    doc = tomllib.loads(resources.files("companion.games.monster_ambush").joinpath("default_box.toml").read_text())
    assert parse_box(doc).tokens == 18
    doc["map"]["ship"] = "Z1"
    with pytest.raises(BoxProfileError, match=r"b.toml: map.ship: 'Z1' is not a hex"):
        parse_box(doc, "b.toml")
    doc["map"]["ship"] = "E1"
    doc["tokens"] = -1
    with pytest.raises(BoxProfileError, match="tokens: expected a whole number"):
        parse_box(doc, "b.toml")
    assert load_box().map.ship == "E1"


HEXES = list(GAME.box.map.hexes)
moves = st.one_of(
    st.builds(NewStack, st.sampled_from(list(GAME.box.map.path_ends) + [SHIP])),
    st.builds(Grow, st.sampled_from(HEXES)),
    st.builds(Move, st.sampled_from(HEXES), st.sampled_from(HEXES)),
    st.just(EndActions()), st.just(EndTurn()), st.just(HumansDone()),
    st.builds(Ambush, st.sampled_from(HEXES), st.integers(1, 6), st.tuples(st.integers(1, 6), st.integers(1, 6)),
              st.integers(1, 8), st.booleans(), st.booleans()),
    st.builds(Retreat, st.sampled_from(HEXES)),
    st.builds(Killed, st.sampled_from(HEXES), st.integers(1, 3)),
)


@settings(max_examples=120, deadline=None)
@given(st.lists(moves, max_size=60))
def test_random_play_keeps_the_pool_and_the_limits(actions):
    s = GAME.apply(None, NewGame())
    for a in actions:
        assert action_from_json(action_to_json(a)) == a
        try:
            s2 = GAME.apply(s, a)
        except IllegalAction as exc:
            assert exc.reason
            continue
        assert 0 <= s2.pool <= 18 and s2.on_board + s2.pool == 18
        assert all(n > 0 for _, n in s2.stacks) and len({h for h, _ in s2.stacks}) == len(s2.stacks)
        assert 0 <= s2.actions_left <= s2.actions_per_turn
        if s2.phase == "humans":
            assert all(n <= 6 for _, n in s2.stacks)
        if isinstance(a, Ambush):
            assert s2.last.monster_strength <= 7 and s2.last.human_strength <= max(8, a.soldiers)
        s = s2


def test_a_grenadier_helps_in_several_ambushes_in_one_turn():
    """'Гранатомётчик может давать бонус +1 и нескольким солдатам, попавшим в засаду в течение одного хода.' (A
    grenadier may give +1 to several soldiers ambushed in one turn.)"""
    s = run(NewStack(SHIP), NewStack("C1"), EndActions())
    s = GAME.apply(s, Ambush(SHIP, 1, (2, 1), 1, grenadier=True))
    assert s.last.human_strength == 3
    s = GAME.apply(s, Retreat("E2"))
    s = GAME.apply(s, Ambush("C1", 1, (2, 1), 1, grenadier=True))
    assert s.last.human_strength == 3 and s.last.outcome == "humans"
