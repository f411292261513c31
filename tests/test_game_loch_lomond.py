"""Monsters of Loch Lomond: the score keeper. Each scenario quotes the rulebook passage
(seeds/003_196e4e5c7f3f958b.txt) it checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BoxProfileError, IllegalAction, MalformedAction
from companion.games.loch_lomond import (CARDS, Freedom, NewGame, PlayToken, ScoreRound, action_from_json,
                                         action_to_json, load_box, make_game, parse_box)

GAME = make_game()
P = ("Ann", "Bob", "Cat")


def start(players=P):
    return GAME.apply(None, NewGame(players))


def play_round(s, caller, clans):
    s = GAME.apply(s, Freedom(caller))
    return GAME.apply(s, ScoreRound(clans))


def line(s, player, rnd=-1):
    return next(sc for sc in s.results[rnd].scores if sc.player == player)


def test_missionary_converts_one_priest_of_forvie():
    """'When both cards are in your clan at the end of the round, the Priest of Forvie will be converted and is
    worth -3 points instead of 8. One Missionary can only convert one Priest of Forvie.'"""
    one = GAME.clan_score("Ann", ("missionary", "priest-of-forvie"))
    assert one.points == 1 - 3 and one.monsters == 0 and one.converted == 1
    two_priests = GAME.clan_score("Ann", ("missionary", "priest-of-forvie", "priest-of-forvie"))
    assert two_priests.points == 1 - 3 + 8 and two_priests.monsters == 1
    two_missionaries = GAME.clan_score("Ann", ("missionary", "missionary", "priest-of-forvie"))
    assert two_missionaries.points == 1 + 1 - 3
    alone = GAME.clan_score("Ann", ("priest-of-forvie",))
    assert alone.points == 8 and alone.monsters == 1


def test_printed_values_and_what_a_monster_is():
    """'every Mercenary of MacLean is worth -2 points' ... 'every Missionary ... 1 point' ... 'he's worth 2 points'
    ... 'They are worth 3 points' ... 'to avoid the 9 points!' and 'The Monster cards are all cards with a value of
    4 and higher. For instance: the "Monster Egg" is not a Monster (yet).'"""
    assert GAME.clan_score("A", ("mercenary", "missionary", "brahan-seer", "monster-egg")).points == -2 + 1 + 2 + 3
    assert GAME.clan_score("A", ("monster-egg",)).monsters == 0
    assert GAME.clan_score("A", ("witch",)).points == 9 and GAME.clan_score("A", ("witch",)).monsters == 1


def test_victory_token_for_a_monster_free_lowest_caller():
    """'Did you call "FREEDOM!!" with no Monster in your clan, and did you also have the lowest score? You win a
    Victory Token! These Tokens are worth -3, -4, -5 or -6 points at the end of the game.'"""
    s = play_round(start(), "Ann", {"Ann": ("mercenary", "missionary"), "Bob": ("witch",), "Cat": ("broonie",)})
    assert s.results[0].outcome == "won"
    assert line(s, "Ann", 0).victory_token == -3
    assert GAME.totals(s)["Ann"] == -1 - 3


def test_the_caller_keeps_the_token_on_a_tie():
    """'Do you share the lowest score with another player? You called out "FREEDOM!!" first, therefore you still win
    the Victory Token.'"""
    s = play_round(start(), "Bob", {"Ann": ("missionary",), "Bob": ("missionary",), "Cat": ("witch",)})
    assert s.results[0].outcome == "won" and line(s, "Bob", 0).victory_token == -3


def test_token_set_aside_when_monster_free_but_not_lowest():
    """'If you don't have the lowest points, but have no Monsters in your clan, no Token is won this round and a
    Victory Token will be set aside.'"""
    s = play_round(start(), "Ann", {"Ann": ("monster-egg",), "Bob": ("mercenary",), "Cat": ("witch",)})
    assert s.results[0].outcome == "set-aside"
    assert all(sc.victory_token is None for sc in s.results[0].scores)
    assert line(s, "Ann", 0).penalty == 0


def test_incorrect_freedom_costs_eight_points():
    """'You called "FREEDOM!!" but you still have a Monster in your clan? This counts as an incorrect "FREEDOM!!".
    You will get 8 penalty points.'"""
    s = play_round(start(), "Cat", {"Ann": ("witch",), "Bob": ("witch",), "Cat": ("loch-monster",)})
    sc = line(s, "Cat", 0)
    assert s.results[0].outcome == "incorrect" and sc.penalty == 8 and sc.total == sc.points + 8
    assert sc.victory_token is None


def test_seer_stone_and_baby_monster_tokens():
    """'If you have a 'Brahan Seer' in your clan at the end of the round, you will receive one Seer Stone Token for
    every Brahan Seer.' and 'If you have the 'Monster Egg' still in your clan at the end of the round, you receive one
    Baby Monster Token for every Monster Egg.'"""
    s = play_round(start(), "Ann", {"Ann": ("brahan-seer", "brahan-seer"), "Bob": ("monster-egg",), "Cat": ()})
    assert s.seer_stones == (2, 0, 0) and s.baby_monsters == (0, 1, 0)
    s = GAME.apply(s, PlayToken("Ann", "seer-stone"))
    assert s.seer_stones == (1, 0, 0)
    s = GAME.apply(s, PlayToken("Bob", "baby-monster", "Cat"))
    assert s.baby_monsters == (0, 0, 0) and s.babies_placed == 1
    # 'This counts as an additional Monster card in your rival's clan.'
    s = play_round(s, "Ann", {"Ann": (), "Bob": (), "Cat": ("baby-monster-token",)})
    assert line(s, "Cat").monsters == 1


def test_no_baby_monster_token_in_the_last_round():
    """''Baby Monster Token' or the action of 'Red Cap' are not allowed during the last round.'"""
    s = play_round(start(), "Ann", {"Ann": (), "Bob": ("monster-egg",), "Cat": ()})
    s = GAME.apply(s, Freedom("Ann"))
    with pytest.raises(IllegalAction, match="last round") as exc:
        GAME.apply(s, PlayToken("Bob", "baby-monster", "Cat"))
    assert "Last Round" in exc.value.rule


def test_a_baby_monster_goes_to_a_rival_and_must_be_owned():
    """'Play the Baby Monster Token by placing the card open in one of your rivals' clans.'"""
    s = start()
    with pytest.raises(IllegalAction, match="no Baby Monster Token"):
        GAME.apply(s, PlayToken("Ann", "baby-monster", "Bob"))
    s = play_round(s, "Ann", {"Ann": ("monster-egg",), "Bob": (), "Cat": ()})
    with pytest.raises(IllegalAction, match="rival"):
        GAME.apply(s, PlayToken("Ann", "baby-monster", "Ann"))
    with pytest.raises(IllegalAction, match="target"):
        GAME.apply(s, PlayToken("Ann", "baby-monster"))
    with pytest.raises(IllegalAction, match="were played"):
        play_round(s, "Bob", {"Ann": (), "Bob": (), "Cat": ("baby-monster-token",)})


def test_four_rounds_then_the_lowest_total_wins_and_the_caller_starts_next():
    """'The player with the lowest amount of points after four rounds wins the game!' and 'In the next round, the
    starting player will be the one who called "FREEDOM!" in the previous round.'"""
    s = start()
    assert s.starter == "Ann"  # 'The oldest and wisest player starts in the first round.'
    s = play_round(s, "Bob", {"Ann": ("witch",), "Bob": ("mercenary",), "Cat": ("kelpie",)})
    assert s.starter == "Bob" and s.round == 2
    for caller in ("Bob", "Cat", "Bob"):
        s = play_round(s, caller, {"Ann": ("witch",), "Bob": ("mercenary",), "Cat": ("peasant",)})
    assert s.over and len(s.results) == 4
    # Bob: -2 -3 | -2 | -2 -5 ... every token handed out in order once.
    assert [r.token_value for r in s.results] == [-3, -4, -5, -6]
    assert GAME.winners(s) == ["Bob"]
    assert "Game over. Bob wins" in GAME.prompt(s)
    with pytest.raises(IllegalAction, match="game is over"):
        GAME.apply(s, Freedom("Ann"))


def test_refusals_name_the_rule_and_change_nothing():
    s = start()
    with pytest.raises(IllegalAction, match="nobody has called FREEDOM") as exc:
        GAME.apply(s, ScoreRound({p: () for p in P}))
    assert exc.value.rule
    s2 = GAME.apply(s, Freedom("Ann"))
    with pytest.raises(IllegalAction, match="already called"):
        GAME.apply(s2, Freedom("Bob"))
    with pytest.raises(IllegalAction, match="missing Cat"):
        GAME.apply(s2, ScoreRound({"Ann": (), "Bob": ()}))
    with pytest.raises(IllegalAction, match="only 2"):
        GAME.apply(s2, ScoreRound({"Ann": ("witch", "witch"), "Bob": ("witch",), "Cat": ()}))
    with pytest.raises(IllegalAction, match="does not play"):
        GAME.apply(s, Freedom("Zed"))
    with pytest.raises(IllegalAction, match="2 to 6"):
        GAME.apply(None, NewGame(("Solo",)))
    assert s2.caller == "Ann" and s.caller is None  # states are values: nothing changed


@pytest.mark.parametrize("data,match", [
    ({"type": "freedom"}, "missing"),
    ({"type": "freedom", "player": ""}, "player"),
    ({"type": "new-game", "players": ["A", "A"]}, "different"),
    ({"type": "new-game", "players": "Ann"}, "players"),
    ({"type": "play-token", "player": "Ann", "token": "gold"}, "token"),
    ({"type": "score-round", "clans": {"Ann": ["dragon"]}}, "clan of"),
    ({"type": "score-round", "clans": []}, "clans"),
    ({"type": "score-round", "clans": {}, "extra": 1}, "unknown field"),
    ({"type": "shoo"}, "unknown action type"),
])
def test_malformed_actions(data, match):
    with pytest.raises(MalformedAction, match=match):
        action_from_json(data)


def test_card_values_profile_errors_name_file_key_and_reason():
    import tomllib
    from importlib import resources

    doc = tomllib.loads(resources.files("companion.games.loch_lomond").joinpath("default_box.toml").read_text())
    assert parse_box(doc).cards["witch"].value == 9
    assert sum(c.count for c in load_box().cards.values()) == 52  # '52 playing cards'
    doc["cards"]["witch"]["value"] = "nine"
    with pytest.raises(BoxProfileError, match=r"my.toml: cards.witch.value: expected a whole number"):
        parse_box(doc, "my.toml")
    doc["cards"]["witch"]["value"] = 9
    doc["victory_tokens"] = [-3, -4]
    with pytest.raises(BoxProfileError, match="victory_tokens: one Victory Token per round"):
        parse_box(doc, "my.toml")
    with pytest.raises(BoxProfileError, match="no such file"):
        load_box("/nonexistent/values.toml")


clan = st.lists(st.sampled_from(CARDS), max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.lists(st.tuples(st.integers(0, 4), st.lists(clan, min_size=5, max_size=5)),
                                    min_size=4, max_size=4))
def test_random_games_keep_the_score_sheet_consistent(n, rounds):
    players = tuple(f"P{i}" for i in range(n))
    s = GAME.apply(None, NewGame(players))
    for caller_i, clans in rounds:
        caller = players[caller_i % n]
        s = GAME.apply(s, Freedom(caller))
        cards = {p: tuple(clans[i]) for i, p in enumerate(players)}
        try:
            s2 = GAME.apply(s, ScoreRound(cards))
        except IllegalAction as exc:
            assert "deck has only" in str(exc)
            s2 = GAME.apply(s, ScoreRound({p: () for p in players}))
        s = s2
        assert action_from_json(action_to_json(ScoreRound(cards))) == ScoreRound(cards)
    assert s.over and len(s.results) == 4
    won = [sc.victory_token for r in s.results for sc in r.scores if sc.victory_token is not None]
    assert len(won) == sum(r.outcome == "won" for r in s.results) <= 4
    totals = GAME.totals(s)
    for p in players:
        assert totals[p] == sum(sc.points + sc.penalty + (sc.victory_token or 0)
                                for r in s.results for sc in r.scores if sc.player == p)
    for r in s.results:
        caller = next(sc for sc in r.scores if sc.player == r.caller)
        assert (r.outcome == "incorrect") == (caller.monsters > 0) == (caller.penalty == 8)
    assert min(s.seer_stones) >= 0 and min(s.baby_monsters) >= 0
    assert set(GAME.winners(s)) == {p for p in players if totals[p] == min(totals.values())}


def test_the_table_runs_it_over_http(make_service):
    from companion.web import create_app

    client = create_app(make_service(start_game=False), {"TESTING": True}).test_client()
    r = client.post("/api/games/loch-lomond/actions", json={"type": "new-game", "players": ["Ann", "Bob"]})
    assert r.status_code == 200, r.json
    r = client.post("/api/games/loch-lomond/actions", json={"type": "score-round", "clans": {"Ann": [], "Bob": []}})
    assert r.status_code == 409 and "FREEDOM" in r.json["rule"]
    assert client.get("/api/games/loch-lomond/state").json["actions"] == 1
    client.post("/api/games/loch-lomond/actions", json={"type": "freedom", "player": "Bob"})
    exported = client.get("/api/games/loch-lomond/export").json
    assert client.post("/api/games/loch-lomond/import", json=exported).json["caller"] == "Bob"
    assert client.post("/api/games/loch-lomond/undo").json["caller"] is None
