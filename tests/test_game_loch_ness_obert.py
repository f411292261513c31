"""Loch Ness (Walter Obert). Each scenario quotes the rulebook passage (seeds/001_1b689ec8ac2a19dd.txt) it checks."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BoxProfileError, IllegalAction, MalformedAction
from companion.games.loch_ness_obert import (LochNessObert, MoveNessie, MovePhotographer, NewGame, PlaceNessie,
                                             PlacePhotographer, Photos, Roll, action_from_json, action_to_json,
                                             load_box, make_game, parse_box)

GAME = make_game()
DOC = tomllib.loads(resources.files("companion.games.loch_ness_obert").joinpath("default_box.toml").read_text())


def small_bag_game(photos):
    doc = {**DOC, "photos": {str(k): v for k, v in photos.items()}}
    return LochNessObert(parse_box(doc, "small.toml"))


def ready(game=GAME, areas=("sheep", "dock", "lighthouse", "castle", "boat", "tree"), **opts):
    s = game.apply(None, NewGame(("red", "yellow"), **opts))
    for a in areas:
        s = game.apply(s, PlacePhotographer(a))
    return s


def test_two_players_red_and_yellow_with_three_photographers():
    """'If you're playing with two players, one player will be red and the other yellow.' ... 'each player chooses one
    color and takes 2 photographers' ... 'keep taking turns placing your second (and third) photographers.'"""
    s = ready()
    assert s.phase == "turn" and s.placed("red") == ["boat", "lighthouse", "sheep"]
    assert len(s.placed("yellow")) == 3
    with pytest.raises(IllegalAction, match="red and the other yellow"):
        GAME.apply(None, NewGame(("red", "blue")))
    s3 = GAME.apply(None, NewGame(("blue", "black", "green")))
    assert s3.per_player == 2


def test_one_photographer_per_viewing_area():
    """'But, each Viewing Area can only have one photographer! You must choose an empty Viewing Area.'"""
    s = GAME.apply(GAME.apply(None, NewGame(("red", "yellow"))), PlacePhotographer("dock"))
    with pytest.raises(IllegalAction, match="already has the red photographer") as exc:
        GAME.apply(s, PlacePhotographer("dock"))
    assert "only have one photographer" in exc.value.rule


def test_nessie_starts_in_order_on_adjacent_circles():
    """'All pieces of Nessie have to be put in order: first the head, then the body and finally the tail. Each piece
    will be in a different circle of the Monster Track. These circles have to be adjacent to each other.'"""
    assert GAME.apply(None, NewGame(("red", "yellow"), nessie=("c3", "c2", "c1"))).nessie == ("c3", "c2", "c1")
    for bad in (("c1", "c2", "c3"), ("c3", "c1", "c2"), ("c5", "c2", "c1")):
        with pytest.raises(IllegalAction, match="adjacent circles in order"):
            GAME.apply(None, NewGame(("red", "yellow"), nessie=bad))


def test_move_exactly_the_number_never_backwards_choose_at_a_crossroads():
    """'you have to move Nessie the number of circles equal to the number rolled. Nessie can't go backwards, she can
    only move ahead on the Monster Track. If Nessie is on a crossroads, you choose which way she moves.'"""
    s = replace(ready(), nessie=("c6", "c5", "c4"))
    s = GAME.apply(s, Roll(2))
    assert sorted(GAME.box.paths("c6", 2)) == [("c7", "c8"), ("i1", "i2")]
    moved = GAME.apply(s, MoveNessie(("i1", "i2")))
    assert moved.nessie == ("i2", "i1", "c6")  # the body and tail follow the head
    with pytest.raises(IllegalAction, match="exactly 2"):
        GAME.apply(s, MoveNessie(("c7",)))
    with pytest.raises(IllegalAction, match="not a circle ahead") as exc:
        GAME.apply(s, MoveNessie(("c5", "c4")))
    assert "can't go backwards" in exc.value.rule


def test_the_water_symbol_dives_and_places_her_anywhere():
    """'If you roll the water symbol, Nessie dives under the water! Pick up all three Nessie parts and place them
    anywhere on the Monster Track you want! Remember to keep all three parts together and in the right order'"""
    s = GAME.apply(ready(), Roll("water"))
    assert s.phase == "dive"
    with pytest.raises(IllegalAction, match="in order"):
        GAME.apply(s, PlaceNessie("c20", "c22", "c21"))
    s = GAME.apply(s, PlaceNessie("c22", "c21", "c20"))
    assert s.nessie == ("c22", "c21", "c20")
    with pytest.raises(IllegalAction, match="not a face"):
        GAME.apply(ready(), Roll(12))


def test_each_photographer_draws_one_photo_per_part_it_sees():
    """'Each photographer on a Viewing Area that can see any part of Nessie after she moves draws one photo from the bag
    for each part of Nessie on a circle with the matching symbol.' (the dock sees all three parts, the lighthouse one)"""
    s = replace(ready(), nessie=("c1", "c24", "c23"))
    s = GAME.apply(s, Roll(3))  # c2, c3, c4: sheep on c2, c3; dock on c3, c4, and on c5 ...
    s = GAME.apply(s, MoveNessie(("c2", "c3", "c4")))
    assert s.nessie == ("c4", "c3", "c2")
    assert GAME.sees(s, "sheep") == ["body", "tail"] and GAME.sees(s, "dock") == ["head", "body"]
    # 'Starting with the player who moved Nessie': red moved; red's sheep, then yellow's dock.
    assert [(c, a, d) for c, a, d in s.queue] == [("red", "sheep", 2), ("yellow", "dock", 2)]
    s = GAME.apply(s, Photos(5, (5, 2)))
    assert s.photos[0] == (5,) and s.in_bag == 35
    with pytest.raises(IllegalAction, match="draws 2 photo"):
        GAME.apply(s, Photos(1, (1,)))
    s = GAME.apply(s, Photos(1, (1, 3)))
    assert s.phase == "turn" and s.player == "yellow" and s.photos[1] == (1,)


def test_moving_a_photographer_takes_no_photos():
    """'pick up any one of your photographers from the board and put him on any empty Viewing Area. No one can take any
    photos this turn.'"""
    s = ready()
    with pytest.raises(IllegalAction, match="no photographer on"):
        GAME.apply(s, MovePhotographer("dock", "hill"))
    s = GAME.apply(s, MovePhotographer("sheep", "hill"))
    assert s.at("hill") == "red" and s.at("sheep") is None and s.player == "yellow" and s.queue == ()
    with pytest.raises(IllegalAction, match="not empty"):
        GAME.apply(s, MovePhotographer("dock", "hill"))


def test_not_enough_photos_then_the_end_and_the_tie_break():
    """'If there are not enough photos in the bag, draw them all and choose which one to keep.' ... 'The game ends when
    there are no photos in the bag.' ... 'If there's a tie, the player who shot the most photos is the winner.'"""
    game = small_bag_game({2: 1, 1: 2})
    s = replace(ready(game), nessie=("c1", "c24", "c23"))
    s = game.apply(game.apply(s, Roll(3)), MoveNessie(("c2", "c3", "c4")))
    s = game.apply(s, Photos(2, (2, 1)))  # red: 2 points, one photo
    s = game.apply(s, Photos(1, (1, 1)))  # yellow draws the two left, keeps one
    s = game.apply(game.apply(s, Roll(1)), MoveNessie(("c5",)))  # yellow moves: dock sees head c5? (dock: c3-c5)
    assert s.queue[0][0] == "yellow"
    with pytest.raises(IllegalAction, match="does not hold that many 1-point"):
        game.apply(s, Photos(1, (1, 1)))
    s = game.apply(s, Photos(1, (1,)))
    assert s.phase == "over" and s.in_bag == 0
    assert s.score("red") == s.score("yellow") == 2
    assert game.winners(s) == ["yellow"]  # two photos against one
    with pytest.raises(IllegalAction, match="over"):
        game.apply(s, Roll(1))


def test_extended_rule_draw_one_at_a_time():
    """'draw one photo at a time: if you like the photo, you can stop drawing and keep it. ... If you draw your last
    photo, you must keep it!'"""
    s = replace(ready(one_at_a_time=True), nessie=("c1", "c24", "c23"))
    s = GAME.apply(GAME.apply(s, Roll(3)), MoveNessie(("c2", "c3", "c4")))
    with pytest.raises(IllegalAction, match="keep the last one drawn") as exc:
        GAME.apply(s, Photos(4, (4, 3)))
    assert "one photo at a time" in exc.value.rule
    s = GAME.apply(s, Photos(3, (4, 3)))  # 'She decides to keep it ... The 4-point photo goes back into the bag.'
    assert s.photos[0] == (3,) and dict(s.bag)[4] == 6


def test_extended_rule_push_or_slow_down():
    """'After you roll the die, you can discard one of your photos (put it back in the bag) to add or subtract a number
    of circles from the die roll equal to the value of the photo.'"""
    s = replace(ready(push=True), nessie=("c10", "c9", "c8"), photos=((3,), ()), bag=((1, 10), (2, 9), (3, 7), (4, 6),
                                                                                      (5, 3)))
    s = GAME.apply(s, Roll(5))
    pushed = GAME.apply(s, MoveNessie(tuple(f"c{i}" for i in range(11, 19)), discard=3))
    assert pushed.nessie[0] == "c18" and pushed.photos[0] == () and dict(pushed.bag)[3] == 8
    slowed = GAME.apply(s, MoveNessie(("c11", "c12"), discard=3))
    assert slowed.nessie[0] == "c12"
    with pytest.raises(IllegalAction, match="no 4-point photo"):
        GAME.apply(s, MoveNessie(("c11",), discard=4))
    plain = replace(s, push=False)
    with pytest.raises(IllegalAction, match="extended rule"):
        GAME.apply(plain, MoveNessie(("c11", "c12"), discard=3))


def test_extended_rule_no_photos_after_a_dive():
    """'If Nessie dives under the water ... you still move the monster to any part of the lake you choose, but no one
    can take any photos this turn!'"""
    s = GAME.apply(ready(dive_no_photos=True), Roll("water"))
    s = GAME.apply(s, PlaceNessie("c4", "c3", "c2"))
    assert s.queue == () and s.phase == "turn" and s.player == "yellow"
    s = GAME.apply(ready(), Roll("water"))
    assert GAME.apply(s, PlaceNessie("c4", "c3", "c2")).phase == "photos"


@pytest.mark.parametrize("data,match", [
    ({"type": "roll", "value": 0}, "value"), ({"type": "roll", "value": "fire"}, "value"),
    ({"type": "new-game", "players": ["red", "purple"]}, "colours"),
    ({"type": "new-game", "players": ["red", "red"]}, "once"),
    ({"type": "new-game", "players": ["red", "yellow"], "push": "yes"}, "push"),
    ({"type": "move-nessie", "path": []}, "at least one"),
    ({"type": "photos", "keep": 3, "drawn": [1, 2]}, "one of those drawn"),
    ({"type": "place-nessie", "head": "c1"}, "missing"),
])
def test_malformed_actions(data, match):
    with pytest.raises(MalformedAction, match=match):
        action_from_json(data)


def test_box_profile_errors():
    doc = {**DOC, "track": {**DOC["track"], "c3": {"next": ["c99"], "symbols": []}}}
    with pytest.raises(BoxProfileError, match="b.toml: track.c3.next: 'c99' is not a circle"):
        parse_box(doc, "b.toml")
    with pytest.raises(BoxProfileError, match="die_faces"):
        parse_box({**DOC, "die_faces": [1, 2, 3]}, "b.toml")
    with pytest.raises(BoxProfileError, match="start.nessie"):
        parse_box({**DOC, "start": {"nessie": ["c1", "c2", "c3"]}}, "b.toml")
    assert sum(n for _, n in load_box().photos) == 36  # '36 photos of Nessie'


def fill(entry, draw):
    """A random action from one entry of ``legal`` (what the dashboard would send)."""
    data = {"type": entry["type"], **entry.get("fixed", {})}
    for f in entry.get("fields", []):
        if f["kind"] == "choice":
            data[f["name"]] = draw(st.sampled_from(f["choices"]))
        elif f["kind"] == "bool":
            data[f["name"]] = draw(st.booleans())
    return data


@settings(max_examples=25, deadline=None)
@given(st.data(), st.sampled_from([("red", "yellow"), ("blue", "black", "green"), ("yellow", "red", "blue", "black",
                                                                                       "green")]),
       st.booleans(), st.booleans(), st.booleans())
def test_random_playthroughs_keep_nessie_in_order_and_the_photos_counted(data, players, one, push, dive):
    game = small_bag_game({1: 4, 3: 3, 5: 2})
    s = game.apply(None, NewGame(players, one, push, dive))
    for _ in range(300):
        legal = game.legal_actions(s)
        if not legal:
            break
        raw = fill(data.draw(st.sampled_from(legal)), data.draw)
        action = game.parse_action(raw)
        assert action_from_json(action_to_json(action)) == action
        s = game.apply(s, action)  # the dashboard's buttons are always legal
        assert game.box.is_placement(*s.nessie)
        assert all(n >= 0 for _, n in s.bag)
        assert s.in_bag + sum(len(p) for p in s.photos) == 9
        assert len({a for a, _ in s.areas}) == len(s.areas) <= s.per_player * len(players)
        if s.phase != "over":
            assert s.in_bag > 0
    if s.phase == "over":
        assert s.in_bag == 0 and game.winners(s)
    with pytest.raises(IllegalAction):
        game.apply(s, PlacePhotographer("nowhere") if s.phase == "place" else Roll("water") if s.phase != "turn"
                   else Photos(1))
