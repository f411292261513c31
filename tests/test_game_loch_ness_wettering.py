"""Loch Ness (Ronald Wettering). Each scenario quotes the Czech rulebook passage (seeds/002_6f32dea1b1d4604f.txt)
it checks, with an English reading."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BoxProfileError, IllegalAction, MalformedAction
from companion.games.loch_ness_wettering import (Auction, Bagpipes, Camera, LochNessWettering, NewGame, Pass,
                                                 PlaceDummy, Reporter, Reveal, TakePhoto, action_from_json,
                                                 action_to_json, load_box, make_game, parse_box, set_points)

GAME = make_game()
DOC = tomllib.loads(resources.files("companion.games.loch_ness_wettering").joinpath("default_box.toml").read_text())
THREE = ("blue", "red", "green")
DISPLAY = ("head", "body", "tail")
# Round one: blue, red, green place in turn: blue w1a w2a w3a (Fort Augustus, 9 spots: w1-w3),
# red w4a w5a (Invermoriston, 6 spots: w4-w5) and w6a, green w7a w8a w9a.
ROUND_ONE = ["w1a", "w4a", "w7a", "w2a", "w5a", "w8a", "w3a", "w6a", "w9a"]


def placed(game=GAME, players=THREE, spots=ROUND_ONE, **opts):
    s = game.apply(None, NewGame(players, DISPLAY, **opts))
    for k, spot in enumerate(spots):
        s = game.apply(s, Camera(game.box.start_cameras[k // len(players)], spot))
    return s


def test_set_scoring():
    """'Za každou trojici rozdílných fotografií (hlava, trup a ocas Nessie) získá hráč 10 bodů. Za dvě rozdílné
    fotografie získá hráč 5 bodů (nezávisle na druhu). Za každou další fotografii získá hráč 1 bod. Každá fotografie je
    vyhodnocena pouze jedenkrát.' (10 per head-body-tail set, 5 per two different photos, 1 for every other photo;
    each photo counts once.)"""
    assert set_points(1, 1, 1) == 10
    assert set_points(1, 0, 1) == 5
    assert set_points(2, 0, 0) == 2
    assert set_points(2, 1, 1) == 11
    assert set_points(2, 2, 1) == 15
    assert set_points(3, 3, 3) == 30
    assert set_points(0, 0, 0) == 0


def test_round_one_cameras_on_front_spots_in_turn():
    """'Počínaje začínajícím hráčem umístí všichni hráči po směru hodinových ručiček jeden ze svých fotoaparátů na
    některé prázdné pole číhání ... V tuto chvíli mohou hráči umisťovat fotoaparáty jen na dvě přední pole číhání.'
    (From the start player clockwise, one camera at a time on an empty spot; only the two front spots for now.)"""
    s = GAME.apply(None, NewGame(THREE, DISPLAY))
    with pytest.raises(IllegalAction, match="back lurking spot"):
        GAME.apply(s, Camera(3, "w1c"))
    s = GAME.apply(s, Camera(3, "w1a"))
    with pytest.raises(IllegalAction, match="not empty"):
        GAME.apply(s, Camera(3, "w1a"))
    assert GAME.prompt(s).startswith("Round 1. Red")
    assert placed().phase == "reveal"


def test_the_sum_moves_both_nessies_and_the_area_is_scored():
    """'Začínající hráč posune obě figurky Nessie o tolik polí, jaká je hodnota součtu. Velkou figurku Nessie posune ve
    směru hodinových ručiček po polích vody a malou figurku po bodovací dráze.' and 'Každý hráč získá tolik bodů, kolik
    je součet hodnot jeho fotoaparátů ve vyhodnocované oblasti číhání' (The sum moves big Nessie clockwise on the water
    and small Nessie on the score track; each player scores the sum of their cameras in the lurking area.)"""
    s = placed()
    s = GAME.apply(s, Reveal((1, 1, 1)))  # w1 + 3 = w4: Invermoriston (w4, w5), red has 3 on w4a and 4 on w5a
    assert s.nessie == "w4" and s.small == 3
    assert s.scores == (0, 7, 0)
    # '... pokud se Nessie naopak vynořila v oblasti s 6 poli číhání, vezme si každý hráč 2 karty fotografie.'
    assert s.phase == "photos" and [q for q in s.queue] == [(1, "photo"), (1, "photo")]


def test_one_photo_per_camera_in_a_nine_spot_area():
    """'Pokud se Nessie vynořila v oblasti s 9 poli číhání, vezme si každý hráč 1 kartu fotografie za každý svůj
    fotoaparát směřující na Nessie' (9-spot area: 1 photo card for each camera pointing at Nessie)."""
    s = GAME.apply(placed(), Reveal((2, 3, 1)))  # w1 + 6 = w7, Urquhart Castle (w6-w8): red 7@w6a, green 3@w7a 4@w8a
    assert s.nessie == "w7" and s.scores == (0, 7, 3 + 4)
    assert s.queue == ((2, "photo"),)


def test_taking_photo_cards_and_the_reshuffle():
    """'může se rozhodnout mezi třemi odkrytými kartami nebo sejmutím a ponecháním první karty z balíčku ... Pokud si
    hráč vezme jednu z odkrytých karet, okamžitě ji doplní' and 'Jakmile je vyčerpán dobírací balíček fotografií, získají
    všichni hráči body za pořízené fotografie ... sebere všechny vyhodnocené karty, zamíchá je a umístí je jako nový
    dobírací balíček. Poté si hráči, kteří nemohli dobrat ..., vezmou tolik karet, kolik jim chybělo' (take a face-up
    card, refilled at once, or the top of the deck; when the deck runs out everyone scores their photos, the scored
    cards become the new deck, and those who could not draw take what they missed.)"""
    small = LochNessWettering(parse_box({**DOC, "photos": {"head": 2, "body": 1, "tail": 1}}, "small.toml"))
    s = small.apply(placed(small), Reveal((1, 1, 1)))  # red: two photos
    assert s.deck == (1, 0, 0)
    with pytest.raises(IllegalAction, match="refill"):
        small.apply(s, TakePhoto("display", "body"))
    with pytest.raises(IllegalAction, match="no tail any more"):
        small.apply(s, TakePhoto("deck", "tail"))
    s = small.apply(s, TakePhoto("display", "body", "head"))  # the last card of the deck: reshuffle at once
    assert s.display == ("head", "tail", "head") and s.scores[1] == 7 + 1
    assert s.photos[1] == (0, 0, 0) and s.deck == (0, 1, 0)
    s = small.apply(s, TakePhoto("deck", "body"))  # red takes the photo still owed from the new deck
    assert s.photos[1] == (0, 0, 0) and s.scores[1] == 7 + 1 + 1  # ... which ran out again
    assert s.phase == "reporters"


def test_two_players_dummy_cameras_and_the_neutral_card():
    """'Ve hře 2 hráčů: ... začnou oba hráči umisťovat na hrací desku fotoaparáty ... dokud všech 6 fotoaparátů není na
    hrací desce' and 'Ve hře 2 hráčů otočí začínající hráč ještě nejvyšší kartu neutrálních karet pohybu' and 'Jakmile
    jsou na konci kola na stole takto 3 neutrální karty pohybu, připraví začínající hráč neutrální balíček ... jako by
    začínalo první kolo' (two players place the six cameras of the unused colours; the start player turns up a neutral
    card for the sum; after three neutral cards the neutral deck is made up again.)"""
    s = GAME.apply(None, NewGame(("blue", "red"), DISPLAY))
    assert s.phase == "dummy"
    for spot in ("w20a", "w20b", "w20c", "w19a", "w19b", "w19c"):
        s = GAME.apply(s, PlaceDummy(spot))
    for k, spot in enumerate(["w1a", "w4a", "w2a", "w5a", "w3a", "w6a"]):
        s = GAME.apply(s, Camera(GAME.box.start_cameras[k // 2], spot))
    with pytest.raises(IllegalAction, match="neutral card") as exc:
        GAME.apply(s, Reveal((1, 2)))
    assert "neutrálních" in exc.value.rule
    s = GAME.apply(s, Reveal((1, 2), 7))  # w1 + 10 = w11: nobody there
    assert s.nessie == "w11" and s.neutral_up == (7,) and s.phase == "reporters"
    s = GAME.apply(GAME.apply(s, Reporter("church")), Reporter("shop"))
    s = GAME.apply(GAME.apply(GAME.apply(GAME.apply(s, Camera(3, "w8a")), Camera(3, "w8b")), Pass()), Pass())
    with pytest.raises(IllegalAction, match="one of"):
        GAME.apply(s, Reveal((1, 1), 7))  # the 7 is already up
    s = GAME.apply(s, Reveal((1, 1), 0))
    assert s.neutral_up == (7, 0)


def test_actions_pub_shop_castle():
    """Hospoda: 'vezme si neutrální fotoaparát hodnoty 5 a umístí jej na některé prázdné přední pole číhání. Na toto
    kolo se tento neutrální fotoaparát počítá, jako by byl jeho barvy. Na konci kola vrátí hráč fotoaparát zpět' (the
    pub's neutral 5 camera counts as the player's for the round and then goes back); Obchod: 'se počítá hráčův
    fotoaparát hodnoty 3 jako by měl hodnotu 9' (the shop: the 3 camera counts as 9); Hrad: 'Může jej navíc umístit do
    zadního pole číhání' (the castle: another camera move, also to a back spot)."""
    s = GAME.apply(placed(), Reveal((5, 5, 5)))  # w16: nobody; round 2, red starts
    assert s.phase == "reporters" and s.players[s.start] == "red"
    with pytest.raises(IllegalAction, match="empty front lurking spot"):
        GAME.apply(s, Reporter("pub"))
    s = GAME.apply(s, Reporter("pub", "w5b"))
    with pytest.raises(IllegalAction, match="already has a reporter") as exc:
        GAME.apply(s, Reporter("pub", "w5c"))
    assert "pouze 1 reportér" in exc.value.rule
    s = GAME.apply(GAME.apply(s, Reporter("shop")), Reporter("castle"))  # green shop, blue castle
    # every player must move one camera (front spots), then may move one more
    with pytest.raises(IllegalAction, match="back lurking spot"):
        GAME.apply(s, Camera(3, "w10c"))
    s = GAME.apply(s, Camera(3, "w10a"))  # red's 3 from w6a
    s = GAME.apply(s, Camera(3, "w4b"))  # green's 3 to Invermoriston
    s = GAME.apply(s, Camera(4, "w9b"))  # blue's 4 from w2a
    with pytest.raises(IllegalAction, match="not optional"):
        GAME.apply(replace(s, queue=((0, "must"),)), Pass())
    s = GAME.apply(GAME.apply(GAME.apply(s, Pass()), Pass()), Pass())
    s = GAME.apply(s, Camera(7, "w5c"))  # blue (castle): the 7 to a back spot
    assert s.phase == "reveal"
    s = GAME.apply(s, Reveal((1, 2, 5)))  # red, green, blue: w16 + 8 = w24 -> w4 (20 spaces)
    assert s.nessie == "w4"
    # Invermoriston (w4, w5): red 4@w5a + the pub's 5@w5b; green's 3@w4b counts 9 (shop); blue 7@w5c (castle)
    assert GAME.area_points(s) == {"red": 4 + 5, "green": 9, "blue": 7}
    assert s.queue == ((2, "photo"), (2, "photo"))  # green's camera on w4b points at w4: 2 photos (6-spot area)
    while s.phase == "photos":
        s = GAME.apply(s, TakePhoto("deck", "head"))
    assert all(o != "neutral" for _, o, _ in s.cameras)  # the pub's camera went back


def test_bagpipes_only_onto_a_space_the_player_watches():
    """Dudy: 'Poté, co hráči posunuli figurku velké Nessie a před vyhodnocením, může hráč posunout Nessie ještě o 1 pole
    dopředu. Tuto akci ale může provést, jen pokud se tím Nessie posune na pole, na které míří jeden z hráčových
    fotoaparátů.' (After Nessie moved and before scoring, the player may move her one more space, only onto a space one
    of the player's cameras points at.)"""
    s = GAME.apply(placed(), Reveal((5, 5, 5)))
    s = GAME.apply(GAME.apply(GAME.apply(s, Reporter("church")), Reporter("distillery")), Reporter("bagpipes"))
    for spot in ("w11a", "w12a", "w13a"):  # red, green, blue each move their 3
        s = GAME.apply(s, Camera(3, spot))
    s = GAME.apply(GAME.apply(GAME.apply(s, Pass()), Pass()), Pass())
    # cards: red, green (distillery: plays from the neutral deck 0-5, 7), blue. Blue watches w13 (3@w13a), w2, w3.
    with pytest.raises(IllegalAction, match="neutral deck"):
        GAME.apply(s, Reveal((1, 6, 1)))
    s2 = GAME.apply(s, Reveal((1, 7, 4)))  # w16 + 12 = w8; one more would be w9: green's camera, not blue's
    assert s2.phase != "bagpipes"
    s4 = GAME.apply(s, Reveal((5, 7, 4)))  # w16 + 16 = w12; one more is w13, where blue's 3@w13a points
    assert s4.phase == "bagpipes"
    assert GAME.apply(s4, Bagpipes(False)).nessie == "w12"
    s5 = GAME.apply(s4, Bagpipes(True))
    assert s5.nessie == "w13" and s5.scores == (3, 3, 3)  # Dores (w11-w13): each has a 3 there


def test_the_game_ends_when_small_nessie_reaches_65():
    """'Na konci kola, kdy malá figurka Nessie dosáhla nebo překročila pole 65 na bodovací dráze, hra končí. Nyní hráči
    získají body za pořízené fotografie' and 'Hráč s nejvyšším počtem bodů je vítězem! Pokud dojde k remíze, mohou se
    hráči radovat ze společného vítězství.' (The game ends at the end of the round in which small Nessie reaches or
    passes 65; photos are scored; the most points wins; a tie is a shared win.)"""
    s = replace(placed(), small=60, photos=((1, 1, 1), (2, 0, 0), (0, 0, 0)))
    s = GAME.apply(s, Reveal((1, 2, 2)))  # w6, Urquhart Castle: red 7@w6a (1 photo), green 3@w7a and 4@w8a
    while s.phase == "photos":
        s = GAME.apply(s, TakePhoto("deck", "tail"))
    assert s.phase == "over" and s.small == 65
    assert GAME.winners(s) == [max(zip(s.scores, s.players))[1]]
    with pytest.raises(IllegalAction, match="over"):
        GAME.apply(s, Pass())


def test_storm_auction():
    """Bouřka!: 'Jakmile malá figurka Nessie dosáhne nebo překoná některé z těchto míst ... bude po dohrání kola
    následovat aukce ... Hráč s nejvyšší sázkou posune svého reportéra o tolik polí zpět ... a vezme si fotoaparát
    hodnoty 5 ... Pokud vyhraje aukci více hráčů, vyhrává místo toho hráč s 2. nejvyšší sázkou ... Jakmile již hráč v
    aukci jednou zvítězil, neúčastní se žádných dalších aukcí' (reaching or passing 20/30/40/50/60 brings an auction
    after the round; the highest bid goes back that many points and takes the 5 camera; tied highest bids give the win
    to the 2nd highest; a winner takes part in no further auctions.)"""
    s = replace(placed(storm=True), small=15, scores=(10, 10, 10))
    s = GAME.apply(s, Reveal((5, 5, 5)))  # 15 -> 30: two auction spaces crossed, one auction
    assert s.phase == "auction"
    with pytest.raises(IllegalAction, match="cannot bid 16"):
        GAME.apply(s, Auction({"blue": 16, "red": 0, "green": 0}))
    s = GAME.apply(s, Auction({"blue": 9, "red": 9, "green": 4}))  # 9 tied: green's 4 wins
    assert s.scores == (10, 10, 6) and s.phase == "storm-camera" and s.storm_won == ("green",)
    s = GAME.apply(s, Camera(5, "w11c"))  # any empty spot, back ones too
    assert ("w11c", "green", 5) in s.cameras and s.phase == "reporters"
    s = replace(s, small=38)
    s = GAME.apply(GAME.apply(GAME.apply(s, Reporter("church")), Reporter("shop")), Reporter("castle"))
    while s.phase == "cameras":
        how = s.queue[0][1]
        colour = s.players[s.queue[0][0]]
        mine = [v for _, o, v in s.cameras if o == colour]
        s = GAME.apply(s, Pass() if how != "must" else Camera(mine[0], f"w{14 + s.queue[0][0]}b"))
    s = GAME.apply(s, Reveal((1, 1, 1)))
    while s.phase == "photos":
        s = GAME.apply(s, TakePhoto("deck", "head"))
    assert s.phase == "auction" and [s.players[p] for p, _ in s.queue] == ["blue", "red"]


def test_free_hotel():
    """Volný hotel: 'Na konci každého kola si hráči neberou zpět své zahrané karty pohybu ... V kole, kdy hráč umístil 5.
    a poslední kartu ze své ruky, vezme si na konci kola všechny karty zpět do ruky.' and Hotel: 'vezme si do ruky
    všechny své karty pohybu, které má před sebou vyloženy.' (played cards stay out; after the fifth all come back; the
    hotel brings them back.)"""
    s = GAME.apply(placed(free_hotel=True), Reveal((1, 1, 1)))
    while s.phase == "photos":
        s = GAME.apply(s, TakePhoto("deck", "head"))
    assert s.played == ((1,), (1,), (1,))
    with pytest.raises(IllegalAction, match="only in the Free hotel"):
        GAME.apply(replace(s, free_hotel=False), Reporter("hotel"))
    s = GAME.apply(s, Reporter("hotel"))  # red
    assert s.played[1] == ()
    s = GAME.apply(GAME.apply(s, Reporter("church")), Reporter("shop"))
    s = GAME.apply(GAME.apply(GAME.apply(s, Camera(3, "w12a")), Camera(3, "w13a")), Camera(3, "w14a"))
    s = GAME.apply(GAME.apply(GAME.apply(s, Pass()), Pass()), Pass())
    with pytest.raises(IllegalAction, match="no movement card 1"):
        GAME.apply(s, Reveal((2, 2, 1)))  # blue's 1 is still face up


def test_refusals_and_malformed_input():
    s = placed()
    with pytest.raises(IllegalAction, match="3 movement card"):
        GAME.apply(s, Reveal((1, 2)))
    with pytest.raises(IllegalAction, match="only turned up in the two-player"):
        GAME.apply(s, Reveal((1, 2, 3), 4))
    with pytest.raises(IllegalAction, match="not now"):
        GAME.apply(s, Reporter("shop"))
    with pytest.raises(IllegalAction, match="2 to 5"):
        GAME.apply(None, NewGame(("blue",), DISPLAY))
    for data, match in [({"type": "reveal", "cards": []}, "1-3"), ({"type": "reporter", "space": "casino"}, "space"),
                        ({"type": "new-game", "players": ["blue", "red"], "display": ["head"]}, "three"),
                        ({"type": "take-photo", "source": "bag", "kind": "head"}, "source"),
                        ({"type": "auction", "bids": {"blue": -1}}, "bids")]:
        with pytest.raises(MalformedAction, match=match):
            action_from_json(data)


def test_box_profile_errors():
    with pytest.raises(BoxProfileError, match=r"b.toml: board.area\[0\].water: a lurking area has 6 or 9 spots"):
        parse_box({**DOC, "board": {**DOC["board"], "area": [{"name": "x", "water": ["w1"]}] + DOC["board"]["area"]}},
                  "b.toml")
    with pytest.raises(BoxProfileError, match="photos"):
        parse_box({**DOC, "photos": {"head": 9}}, "b.toml")
    box = load_box()
    assert sum(box.photos.values()) == 27 and box.neutral_cards == (0, 1, 2, 3, 4, 5, 7)
    assert {len(a.spots) for a in box.areas} == {6, 9}


def fill(entry, draw):
    data = {"type": entry["type"], **entry.get("fixed", {})}
    for f in entry.get("fields", []):
        if f["kind"] == "choice":
            data[f["name"]] = draw(st.sampled_from(f["choices"]))
        elif f["kind"] == "dice":
            data[f["name"]] = [draw(st.sampled_from(f["choices"])) for _ in range(f["count"])]
        elif f["kind"] == "per-player-number":
            data[f["name"]] = {k: draw(st.integers(f["min"], f["max"])) for k in f["keys"]}
    return data


@settings(max_examples=20, deadline=None)
@given(st.data(), st.sampled_from([("blue", "red"), THREE, ("blue", "red", "green", "yellow", "purple")]),
       st.booleans(), st.booleans())
def test_random_playthroughs_keep_cards_and_cameras_consistent(data, players, storm, hotel):
    s = GAME.apply(None, NewGame(players, DISPLAY, storm=storm, free_hotel=hotel))
    for _ in range(400):
        legal = GAME.legal_actions(s)
        if not legal:
            break
        action = GAME.parse_action(fill(data.draw(st.sampled_from(legal)), data.draw))
        assert action_from_json(action_to_json(action)) == action
        try:
            s2 = GAME.apply(s, action)
        except IllegalAction as exc:  # a card not in hand, a bid that cannot be made: refused, nothing changes
            assert isinstance(action, (Reveal, Auction)), exc
            continue
        s = s2
        assert sum(s.deck) + len(s.display) + sum(map(sum, s.photos)) == 27
        assert min(s.deck) >= 0 and len(s.display) <= 3
        spots = [c[0] for c in s.cameras]
        assert len(spots) == len(set(spots))
        for c in players:
            assert sum(o == c for _, o, _ in s.cameras) <= 4
        assert sum(o == "neutral" for _, o, _ in s.cameras) <= 1
        assert len(s.neutral_up) <= 3 and all(len(p) <= 5 for p in s.played)
        assert (s.phase == "over") == (s.small >= 65 and s.phase == "over")
    if s.phase == "over":
        assert s.small >= 65 and GAME.winners(s)


def test_storm_tied_bids_pass_the_win_down_and_all_tied_means_no_winner():
    """'Pokud vyhraje aukci více hráčů, vyhrává místo toho hráč s 2. nejvyšší sázkou, popřípadě hráč s 3. nejvyšší
    sázkou (pokud i 2. nejvyšší sázka byla zvolena více hráči), dokud není takto zvolen jediný vítěz aukce.' (if several
    win, the 2nd highest bid wins instead, or the 3rd if the 2nd was also tied, until a single winner is found)."""
    five = ("blue", "red", "green", "yellow", "purple")
    spots = ["w1a", "w2a", "w3a", "w4a", "w5a", "w6a", "w7a", "w8a", "w9a", "w10a", "w11a", "w12a", "w13a", "w14a",
             "w15a"]
    s = replace(placed(players=five, spots=spots, storm=True), small=19)
    s = GAME.apply(s, Reveal((0 + 1, 1, 1)))  # 19 -> 22: the 20 space
    while s.phase == "photos":
        s = GAME.apply(s, TakePhoto("deck", "body"))
    assert s.phase == "auction"
    s2 = GAME.apply(s, Auction({"blue": 9, "red": 9, "green": 5, "yellow": 5, "purple": 2}))
    assert s2.storm_won == ("purple",) and s2.phase == "storm-camera"
    s3 = GAME.apply(s, Auction({"blue": 3, "red": 3, "green": 3, "yellow": 3, "purple": 3}))
    assert s3.storm_won == () and s3.phase == "reporters" and "nobody wins" in " ".join(s3.events)


def test_free_hotel_all_cards_back_after_the_fifth():
    """Volný hotel: 'V kole, kdy hráč umístil 5. a poslední kartu ze své ruky, vezme si na konci kola všechny karty
    zpět do ruky.' (in the round a player lays the fifth and last card, all cards come back at the end of the round)."""
    s = replace(placed(free_hotel=True), played=((1, 2, 3, 4), (), ()))
    s = GAME.apply(s, Reveal((5, 1, 1)))  # blue lays the 5, the last card in hand; Nessie to w8 (green's 4@w8a)
    assert s.phase == "photos" and s.played[0] == (1, 2, 3, 4, 5)
    while s.phase == "photos":
        s = GAME.apply(s, TakePhoto("deck", "tail"))
    assert s.played == ((), (1,), (1,))
