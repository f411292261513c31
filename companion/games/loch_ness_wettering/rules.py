"""Loch Ness (Ronald Wettering) rules. Actions in, state out; no I/O, clock or chance.

A round: reporters on action spaces (from round 2) -> cameras placed (round 1) or moved -> the
movement cards revealed: their sum moves big Nessie clockwise round the water and small Nessie
along the score track -> bagpipes -> the lurking area is scored and photo cards handed out ->
end of round (Storm! auction) -> ... until small Nessie reaches 65; then the photo sets score.

Rule quotes are from the Czech rulebook (seeds/002_6f32dea1b1d4604f.txt) with an English reading.

    >>> from . import make_game
    >>> game = make_game()
    >>> s = game.apply(None, NewGame(("blue", "red", "green"), ("head", "body", "tail")))
    >>> game.prompt(s)
    'Round 1. Blue: put a camera on an empty front lurking spot.'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from companion.errors import IllegalAction

from .actions import (COLOURS, SPACES, Action, Auction, Bagpipes, Camera, NewGame, Pass, PlaceDummy, Reporter,
                      Reveal, TakePhoto, action_from_json, action_to_json)
from .box import KINDS, WetteringBox

DUMMY, NEUTRAL = "dummy", "neutral"
R_SPOT = "'umisťovat fotoaparáty jen na dvě přední pole číhání' (cameras only on the two front lurking spots)"
R_MOVE = ("'musí každý hráč přesunout jeden ze svých fotoaparátů na některé jiné prázdné pole číhání' (every player "
          "must move one of their cameras to another empty lurking spot) ... 'může každý hráč přesunout jeden další "
          "fotoaparát' (each may move one more)")
R_CASTLE = ("Hrad: 'může hráč posunout další ze svých fotoaparátů. Může jej navíc umístit do zadního pole číhání.' "
            "(the player may move another camera, also to a back lurking spot)")
R_REPORTER = "'Na každém poli může stát pouze 1 reportér.' (only one reporter on each space)"
R_SUM = ("'Hodnota součtu tří položených karet pohybu určuje pole, na kterém se Nessie vynoří.' (the sum of the three "
         "movement cards decides where Nessie surfaces)")
R_TWO = ("'Ve hře 2 hráčů otočí začínající hráč ještě nejvyšší kartu neutrálních karet pohybu, aby byly pro účely "
         "součtu znovu přítomny 3 karty.' (two players: the start player also turns the top neutral card, so that "
         "three cards make the sum)")
R_PHOTO = ("'může se rozhodnout mezi třemi odkrytými kartami nebo sejmutím ... první karty z balíčku ... Pokud si hráč "
           "vezme jednu z odkrytých karet, okamžitě ji doplní novou kartou' (choose one of the three face-up cards or "
           "the top of the deck; a face-up card taken is replaced at once)")
R_BAGPIPES = ("Dudy: 'může hráč posunout Nessie ještě o 1 pole dopředu ... jen pokud se tím Nessie posune na pole, na "
              "které míří jeden z hráčových fotoaparátů' (may move Nessie one more space, only onto a space one of "
              "the player's cameras points at)")
R_AUCTION = ("Bouřka!: 'Každý z hráčů si vybere 0-5 karet pohybu ze své ruky' (each player picks 0-5 movement cards "
             "from the hand) ... 'Jakmile již hráč v aukci jednou zvítězil, neúčastní se žádných dalších aukcí' (a "
             "winner takes part in no further auctions)")


def set_points(head: int, body: int, tail: int) -> int:
    """'Za každou trojici rozdílných fotografií (hlava, trup a ocas Nessie) získá hráč 10 bodů. Za dvě rozdílné
    fotografie získá hráč 5 bodů ... Za každou další fotografii získá hráč 1 bod. Každá fotografie je vyhodnocena pouze
    jedenkrát.' The best split of the photos into sets of three different (10), pairs of different (5) and singles (1)."""
    best = 0
    for t in range(min(head, body, tail) + 1):
        x, y, z = sorted((head - t, body - t, tail - t), reverse=True)
        pairs = min((x + y + z) // 2, y + z)
        best = max(best, 10 * t + 5 * pairs + (x + y + z - 2 * pairs))
    return best


@dataclass(frozen=True, slots=True)
class WState:
    players: tuple[str, ...]
    storm: bool
    free_hotel: bool
    round: int
    start: int  # the start player (holds the big reporter)
    phase: str  # dummy, reporters, cameras, reveal, bagpipes, photos, auction, storm-camera, over
    queue: tuple[tuple[int, str], ...]  # who acts next in this phase, and how
    nessie: str  # big Nessie's water space
    small: int  # small Nessie on the score track
    scores: tuple[int, ...]
    cameras: tuple[tuple[str, str, int], ...]  # (spot, owner colour / dummy / neutral, value), by spot
    reporters: tuple[tuple[str, str], ...] = ()  # (action space, colour)
    played: tuple[tuple[int, ...], ...] = ()  # Free hotel: each player's cards lying face up
    neutral_up: tuple[int, ...] = ()  # two players: the neutral cards turned up since the last reshuffle
    display: tuple[str, ...] = ()
    deck: tuple[int, int, int] = (0, 0, 0)  # heads, bodies, tails in the draw pile
    photos: tuple[tuple[int, int, int], ...] = ()  # each player's photo cards
    storm_won: tuple[str, ...] = ()
    round_from: int = 0  # small Nessie at the start of this round's move
    events: tuple[str, ...] = ()  # what happened this round

    def idx(self, colour: str) -> int:
        return self.players.index(colour)

    def camera_at(self, spot: str):
        return next((c for c in self.cameras if c[0] == spot), None)

    def on_space(self, space: str) -> str | None:
        return dict(self.reporters).get(space)

    @property
    def order(self) -> list[int]:
        n = len(self.players)
        return [(self.start + k) % n for k in range(n)]

    @property
    def card_players(self) -> list[int]:
        """'Začínající hráč a další dva hráči po směru hodinových ručiček' (the start player and the next two)."""
        return self.order if len(self.players) == 2 else self.order[:3]


def _set(t: tuple, i: int, v) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


class LochNessWettering:
    id = "loch-ness-wettering"
    name = "Loch Ness (Ronald Wettering)"
    rulebook = "002_6f32dea1b1d4604f.txt"

    def __init__(self, box: WetteringBox):
        self.box = box

    # -- setup ---------------------------------------------------------------------------------

    def _start(self, a: NewGame) -> WState:
        n = len(a.players)
        if not 2 <= n <= 5:
            raise IllegalAction(f"{n} player(s): the box has reporters in five colours; 2 to 5 play")
        nessie = a.nessie or self.box.water[0]
        if nessie not in self.box.water:
            raise IllegalAction(f"{nessie!r} is not a water space", "'Umístěte velkou figurku Nessie na kterékoli "
                                "vodní pole' (put big Nessie on any water space)")
        total = Counter(self.box.photos)
        shown = Counter(a.display)
        if any(shown[k] > total[k] for k in KINDS):
            raise IllegalAction("the photo deck has not that many cards of that kind")
        deck = tuple(total[k] - shown[k] for k in KINDS)
        s = WState(a.players, a.storm, a.free_hotel, 1, 0, "cameras", (), nessie, 0, (0,) * n, (),
                   played=tuple(() for _ in a.players), display=a.display, deck=deck,
                   photos=tuple((0, 0, 0) for _ in a.players))
        if n == 2:
            # 'Počínaje mladším hráčem začnou oba hráči umisťovat ... dokud všech 6 fotoaparátů není na hrací desce'
            return replace(s, phase="dummy", queue=tuple((k % 2, "dummy") for k in range(6)))
        return self._cameras_round_one(s)

    def _cameras_round_one(self, s: WState) -> WState:
        q = tuple((p, "place") for _ in self.box.start_cameras for p in s.order)
        return replace(s, phase="cameras", queue=q)

    # -- the fold ------------------------------------------------------------------------------

    def apply(self, s: WState | None, a: Action) -> WState:
        if isinstance(a, NewGame):
            if s is not None:
                raise IllegalAction("a game is already under way; start a new game instead")
            return self._start(a)
        if s is None:
            raise IllegalAction("no game yet: set one up first")
        if s.phase == "over":
            raise IllegalAction("the game is over", "'Na konci kola, kdy malá figurka Nessie dosáhla nebo překročila "
                                "pole 65 na bodovací dráze, hra končí.' (the game ends)")
        handler = {PlaceDummy: self._dummy, Reporter: self._reporter, Camera: self._camera, Pass: self._pass,
                   Reveal: self._reveal, Bagpipes: self._bagpipes, TakePhoto: self._take_photo,
                   Auction: self._auction}[type(a)]
        return handler(s, a)

    def _want(self, s: WState, *phases: str, rule: str | None = None) -> None:
        if s.phase not in phases:
            raise IllegalAction(f"not now: {self.prompt(s)}", rule)

    def _empty_spot(self, s: WState, spot: str, front_only: bool, rule: str) -> None:
        sp = self.box.spots.get(spot)
        if sp is None:
            raise IllegalAction(f"{spot!r} is not a lurking spot of this board", rule)
        if s.camera_at(spot):
            raise IllegalAction(f"{spot} is not empty", rule)
        if front_only and not sp.front:
            raise IllegalAction(f"{spot} is a back lurking spot", rule)

    def _dummy(self, s: WState, a: PlaceDummy) -> WState:
        self._want(s, "dummy")
        self._empty_spot(s, a.spot, False, "'na prázdných polích číhání' (on empty lurking spots)")
        s = replace(s, cameras=tuple(sorted(s.cameras + ((a.spot, DUMMY, 0),))), queue=s.queue[1:])
        return s if s.queue else self._cameras_round_one(s)

    def _reporter(self, s: WState, a: Reporter) -> WState:
        self._want(s, "reporters")
        p = s.queue[0][0]
        if a.space == "hotel" and not s.free_hotel:
            raise IllegalAction("the hotel is only in the Free hotel variant", "Hotel (jen pro variantu Volný hotel)")
        if s.on_space(a.space):
            raise IllegalAction(f"{s.on_space(a.space)} already has a reporter on the {a.space}", R_REPORTER)
        cameras = s.cameras
        if a.space == "pub":
            if a.spot is None:
                raise IllegalAction("the pub: say which empty front lurking spot gets the neutral camera",
                                    "Hospoda: 'vezme si neutrální fotoaparát hodnoty 5 a umístí jej na některé prázdné "
                                    "přední pole číhání' (takes the neutral 5 camera to an empty front spot)")
            self._empty_spot(s, a.spot, True, R_SPOT)
            cameras = tuple(sorted(cameras + ((a.spot, NEUTRAL, self.box.neutral_camera),)))
        elif a.spot is not None:
            raise IllegalAction("only the pub places a camera with the reporter")
        played = s.played
        if a.space == "hotel":  # 'vezme si do ruky všechny své karty pohybu, které má před sebou vyloženy'
            played = _set(played, p, ())
        s = replace(s, reporters=s.reporters + ((a.space, s.players[p]),), cameras=cameras, played=played,
                    queue=s.queue[1:])
        if s.queue:
            return s
        q = tuple((p, "must") for p in s.order) + tuple((p, "may") for p in s.order)
        castle = s.on_space("castle")
        if castle:
            q += ((s.idx(castle), "castle"),)
        return replace(s, phase="cameras", queue=q)

    def _camera(self, s: WState, a: Camera) -> WState:
        self._want(s, "cameras", "storm-camera")
        p, how = s.queue[0]
        colour = s.players[p]
        mine = {v: spot for spot, owner, v in s.cameras if owner == colour}
        owned = set(self.box.start_cameras) | ({self.box.storm_camera} if colour in s.storm_won else set())
        if a.value not in owned:
            raise IllegalAction(f"{colour} has no camera worth {a.value} (cameras: {sorted(owned)})")
        if how == "storm":
            self._empty_spot(s, a.spot, False, "Bouřka!: 'umístí jej okamžitě na zvolené prázdné pole číhání'")
            if a.value != self.box.storm_camera:
                raise IllegalAction(f"the auction's prize is the {self.box.storm_camera} camera")
            s = replace(s, cameras=tuple(sorted(s.cameras + ((a.spot, colour, a.value),))), queue=())
            return self._begin_round(s)
        if how == "place":
            if a.value in mine:
                raise IllegalAction(f"{colour}'s {a.value} camera is already on the board; place another",
                                    "'dokud všichni neumístí všechny své 3 fotoaparáty'")
            self._empty_spot(s, a.spot, True, R_SPOT)
            cameras = s.cameras + ((a.spot, colour, a.value),)
        else:
            if a.value not in mine:
                raise IllegalAction(f"{colour}'s {a.value} camera is not on the board", R_MOVE)
            self._empty_spot(s, a.spot, how != "castle", R_CASTLE if how == "castle" else R_SPOT)
            cameras = tuple(c for c in s.cameras if c[0] != mine[a.value]) + ((a.spot, colour, a.value),)
        s = replace(s, cameras=tuple(sorted(cameras)), queue=s.queue[1:])
        return s if s.queue else replace(s, phase="reveal")

    def _pass(self, s: WState, a: Pass) -> WState:
        self._want(s, "cameras")
        if s.queue[0][1] not in ("may", "castle"):
            raise IllegalAction("this camera move is not optional", R_MOVE)
        s = replace(s, queue=s.queue[1:])
        return s if s.queue else replace(s, phase="reveal")

    # -- the movement cards --------------------------------------------------------------------

    def hand(self, s: WState, p: int) -> Counter:
        """The movement cards in a player's hand (all five, unless Free hotel keeps some face up)."""
        return Counter(self.box.player_cards) - Counter(s.played[p])

    def _reveal(self, s: WState, a: Reveal) -> WState:
        self._want(s, "reveal", rule=R_SUM)
        cp = s.card_players
        if len(a.cards) != len(cp):
            names = ", ".join(s.players[p] for p in cp)
            raise IllegalAction(f"{len(cp)} movement card(s) this round ({names}), not {len(a.cards)}",
                                "'Začínající hráč a další dva hráči po směru hodinových ručiček si každý ... "
                                "vytáhnou jednu ze svých karet pohybu' (the start player and the next two play a card)")
        distillery = s.on_space("distillery")
        played = s.played
        for p, v in zip(cp, a.cards):
            if s.players[p] == distillery:
                if v not in self.box.neutral_cards:
                    raise IllegalAction(f"{s.players[p]} plays from the neutral deck ({self.box.neutral_cards}), not {v}",
                                        "Palírna: 'místo svého balíčku karet pohybu použije tento neutrální balíček'")
                continue
            if self.hand(s, p)[v] < 1:
                raise IllegalAction(f"{s.players[p]} has no movement card {v} in hand "
                                    f"({sorted(self.hand(s, p).elements())})")
            if s.free_hotel:
                played = _set(played, p, played[p] + (v,))
        neutral_up = s.neutral_up
        if len(s.players) == 2:
            left = Counter(self.box.neutral_cards) - Counter(s.neutral_up)
            if a.neutral is None or left[a.neutral] < 1:
                raise IllegalAction(f"two players: give the neutral card turned up, one of {sorted(left.elements())}",
                                    R_TWO)
            neutral_up = s.neutral_up + (a.neutral,)
        elif a.neutral is not None:
            raise IllegalAction("the neutral movement card is only turned up in the two-player game", R_TWO)
        total = sum(a.cards) + (a.neutral or 0)
        nessie = self.box.ahead(s.nessie, total)
        ev = f"The cards add up to {total}: big Nessie to {nessie}, small Nessie to {s.small + total}."
        s = replace(s, nessie=nessie, round_from=s.small, small=s.small + total, played=played, neutral_up=neutral_up,
                    events=(ev,))
        piper = s.on_space("bagpipes")
        if piper and self._bagpipes_possible(s, piper):
            return replace(s, phase="bagpipes", queue=((s.idx(piper), "bagpipes"),))
        return self._score(s)

    def _owner(self, s: WState, owner: str) -> str | None:
        """Whose points a camera earns: the pub's neutral camera 'se počítá, jako by byl jeho barvy'."""
        if owner == NEUTRAL:
            return s.on_space("pub")
        return None if owner == DUMMY else owner

    def _bagpipes_possible(self, s: WState, colour: str) -> bool:
        nxt = self.box.ahead(s.nessie, 1)
        return any(self.box.spots[spot].target == nxt and self._owner(s, o) == colour for spot, o, _ in s.cameras)

    def _bagpipes(self, s: WState, a: Bagpipes) -> WState:
        self._want(s, "bagpipes", rule=R_BAGPIPES)
        if a.use:
            nessie = self.box.ahead(s.nessie, 1)
            s = replace(s, nessie=nessie, events=s.events + (f"Bagpipes: big Nessie one more space, to {nessie}.",))
        return self._score(replace(s, queue=()))

    # -- scoring -------------------------------------------------------------------------------

    def area_points(self, s: WState) -> dict[str, int]:
        """'Každý hráč získá tolik bodů, kolik je součet hodnot jeho fotoaparátů ve vyhodnocované oblasti číhání'
        (each player scores the sum of their cameras' values in the scored lurking area)."""
        area = self.box.area_of(s.nessie)
        shop = s.on_space("shop")
        pts = {c: 0 for c in s.players}
        for spot, owner, value in s.cameras:
            who = self._owner(s, owner)
            if who is None or self.box.spots[spot].area != area.index:
                continue
            if who == shop and owner == who and value == self.box.shop_camera:
                value = self.box.shop_value  # Obchod: the 3 camera counts as 9
            pts[who] += value
        return pts

    def photo_grants(self, s: WState) -> dict[str, int]:
        """Cameras pointing straight at Nessie: 1 photo card each in a 9-spot area, 2 in a 6-spot area."""
        per = self.box.area_of(s.nessie).photos_per_camera
        out = {c: 0 for c in s.players}
        for spot, owner, _ in s.cameras:
            who = self._owner(s, owner)
            if who is not None and self.box.spots[spot].target == s.nessie:
                out[who] += per
        return out

    def _score(self, s: WState) -> WState:
        pts = self.area_points(s)
        area = self.box.area_of(s.nessie)
        scores = tuple(sc + pts[c] for sc, c in zip(s.scores, s.players))
        got = ", ".join(f"{c} {pts[c]}" for c in s.players if pts[c]) or "nobody scores"
        s = replace(s, scores=scores, events=s.events + (f"{area.name} is scored: {got}.",))
        grants = self.photo_grants(s)
        queue = tuple((p, "photo") for p in s.order for _ in range(grants[s.players[p]]))
        if queue:
            return replace(s, phase="photos", queue=queue)
        return self._end_round(s)

    def _take_photo(self, s: WState, a: TakePhoto) -> WState:
        self._want(s, "photos", rule=R_PHOTO)
        p = s.queue[0][0]
        ki = KINDS.index(a.kind)
        deck, display = list(s.deck), list(s.display)
        if a.source == "display":
            if a.kind not in display:
                raise IllegalAction(f"no {a.kind} among the face-up cards ({', '.join(display) or 'none'})", R_PHOTO)
            display.remove(a.kind)
            if sum(deck):
                if a.refill is None or deck[KINDS.index(a.refill)] < 1:
                    left = [k for k, n in zip(KINDS, deck) if n]
                    raise IllegalAction(f"refill the face-up cards from the deck: one of {', '.join(left)}", R_PHOTO)
                deck[KINDS.index(a.refill)] -= 1
                display.append(a.refill)
            elif a.refill is not None:
                raise IllegalAction("the deck is empty: nothing to refill with", R_PHOTO)
        else:
            if a.refill is not None:
                raise IllegalAction("a card from the deck leaves no gap to refill", R_PHOTO)
            if deck[ki] < 1:
                raise IllegalAction(f"the deck holds no {a.kind} any more", R_PHOTO)
            deck[ki] -= 1
        mine = list(s.photos[p])
        mine[ki] += 1
        s = replace(s, deck=tuple(deck), display=tuple(display), photos=_set(s.photos, p, tuple(mine)),
                    queue=s.queue[1:])
        if sum(s.deck) == 0:
            s = self._reshuffle(s)
        if s.queue and (sum(s.deck) or s.display):
            return s
        return self._end_round(replace(s, queue=()))

    def _reshuffle(self, s: WState) -> WState:
        """'Jakmile je vyčerpán dobírací balíček fotografií, získají všichni hráči body za pořízené fotografie ...
        Začínající hráč poté sebere všechny vyhodnocené karty, zamíchá je a umístí je jako nový dobírací balíček'
        (when the photo deck runs out, everybody scores their photos as at the end; the scored cards become the new
        deck; those who could not draw take what they missed)."""
        scores = tuple(sc + set_points(*ph) for sc, ph in zip(s.scores, s.photos))
        deck = tuple(sum(ph[i] for ph in s.photos) for i in range(3))
        gained = ", ".join(f"{c} {set_points(*ph)}" for c, ph in zip(s.players, s.photos))
        return replace(s, scores=scores, deck=deck, photos=tuple((0, 0, 0) for _ in s.players),
                       events=s.events + (f"The photo deck ran out: photos scored ({gained}) and reshuffled.",))

    # -- end of the round ----------------------------------------------------------------------

    def _end_round(self, s: WState) -> WState:
        played = s.played
        if s.free_hotel:  # 'V kole, kdy hráč umístil 5. a poslední kartu ze své ruky, vezme si ... všechny karty zpět'
            played = tuple(() if len(pl) >= len(self.box.player_cards) else pl for pl in played)
        neutral_up = () if len(s.neutral_up) >= 3 else s.neutral_up  # 'Jakmile jsou ... 3 neutrální karty'
        cameras = tuple(c for c in s.cameras if c[1] != NEUTRAL)  # the pub's camera goes back
        n = len(s.players)
        s = replace(s, played=played, neutral_up=neutral_up, cameras=cameras, reporters=(), queue=(),
                    start=(s.start + 1) % n, round=s.round + 1)
        if s.small >= self.box.score_end:
            final = tuple(sc + set_points(*ph) for sc, ph in zip(s.scores, s.photos))
            return replace(s, phase="over", scores=final, round=s.round - 1,
                           events=s.events + ("Small Nessie reached the end: the photos are scored.",))
        crossed = [x for x in self.box.auction_spaces if s.round_from < x <= s.small]
        bidders = [c for c in s.players if c not in s.storm_won]
        if s.storm and crossed and bidders:
            return replace(s, phase="auction", queue=tuple((s.idx(c), "bid") for c in bidders))
        return self._begin_round(s)

    def _begin_round(self, s: WState) -> WState:
        return replace(s, phase="reporters", queue=tuple((p, "reporter") for p in s.order))

    def _auction(self, s: WState, a: Auction) -> WState:
        self._want(s, "auction", rule=R_AUCTION)
        bidders = [s.players[p] for p, _ in s.queue]
        if set(a.bids) != set(bidders):
            raise IllegalAction(f"bids from {', '.join(bidders)} and nobody else", R_AUCTION)
        for c, bid in a.bids.items():
            if bid not in self.possible_bids(s, s.idx(c)):
                raise IllegalAction(f"{c} cannot bid {bid} with 0-5 cards from the hand", R_AUCTION)
        counts = Counter(a.bids.values())
        unique = sorted((b for b, k in counts.items() if k == 1), reverse=True)
        if not unique:
            return self._begin_round(replace(s, queue=(), events=s.events + (
                "Storm! auction: every bid was matched; nobody wins.",)))
        bid = unique[0]
        winner = next(c for c, b in a.bids.items() if b == bid)
        i = s.idx(winner)
        # 'posune svého reportéra o tolik polí zpět, jaká byla hodnota jeho sázky (i přes hodnotu 0 ...)'
        s = replace(s, scores=_set(s.scores, i, s.scores[i] - bid), storm_won=s.storm_won + (winner,),
                    phase="storm-camera", queue=((i, "storm"),),
                    events=s.events + (f"Storm! auction won by {winner} with {bid}: {bid} points back; place the "
                            f"{self.box.storm_camera} camera.",))
        return s

    def possible_bids(self, s: WState, p: int) -> set[int]:
        sums = {0}
        for card in self.hand(s, p).elements():
            sums |= {x + card for x in sums}
        return sums

    # -- results and the table -----------------------------------------------------------------

    def winners(self, s: WState) -> list[str]:
        if s.phase != "over":
            return []
        best = max(s.scores)
        return [c for c, sc in zip(s.players, s.scores) if sc == best]

    def prompt(self, s: WState | None) -> str:
        if s is None:
            return "Set up a game: colours clockwise (the start player first), the three face-up photos, variants."
        if s.phase == "over":
            w = self.winners(s)
            return (f"Game over: {' and '.join(c.capitalize() for c in w)} "
                    f"{'share the win' if len(w) > 1 else 'wins'} with {max(s.scores)} points.")
        head = f"Round {s.round}. "
        who = s.players[s.queue[0][0]].capitalize() if s.queue else ""
        if s.phase == "dummy":
            return head + f"{who}: put one of the unused colours' cameras on an empty lurking spot ({7 - len(s.queue)} of 6)."
        if s.phase == "reporters":
            return head + f"{who}: put your second reporter on an empty action space."
        if s.phase == "cameras":
            how = s.queue[0][1]
            return head + {"place": f"{who}: put a camera on an empty front lurking spot.",
                           "must": f"{who}: move one of your cameras to another empty front lurking spot.",
                           "may": f"{who}: you may move one more camera (front spots), or pass.",
                           "castle": f"{who} (castle): you may move another camera, also to a back spot, or pass."}[how]
        if s.phase == "reveal":
            names = ", ".join(s.players[p].capitalize() for p in s.card_players)
            extra = " and turn up the neutral card" if len(s.players) == 2 else ""
            return head + f"Reveal the cameras and the movement cards ({names}){extra}."
        if s.phase == "bagpipes":
            return head + " ".join(s.events) + f" {who} (bagpipes): move Nessie one more space?"
        if s.phase == "photos":
            return head + " ".join(s.events) + f" {who}: take a photo card (face up or from the deck)."
        if s.phase == "auction":
            return head + "Storm! Every player still in the auctions bids 0-5 movement cards."
        return head + " ".join(s.events) + f" {who}: put your {self.box.storm_camera} camera on an empty lurking spot."

    def legal_actions(self, s: WState | None) -> list[dict]:
        if s is None or s.phase == "over":
            return [self.setup_form()] if s is None else []
        p = s.queue[0][0] if s.queue else None
        empty = [x for x in self.box.spots if not s.camera_at(x)]
        front = [x for x in empty if self.box.spots[x].front]
        if s.phase == "dummy":
            return [{"type": "place-dummy", "label": "Unused colour's camera on",
                     "fields": [{"name": "spot", "kind": "choice", "choices": empty}]}]
        if s.phase == "reporters":
            free = [x for x in SPACES if not s.on_space(x) and (x != "hotel" or s.free_hotel)]
            out = [{"type": "reporter", "label": f"{s.players[p].capitalize()}: reporter on",
                    "fields": [{"name": "space", "kind": "choice", "choices": [x for x in free if x != "pub"]}]}]
            if "pub" in free:
                out.append({"type": "reporter", "label": "Reporter to the pub; neutral camera on", "fixed": {"space": "pub"},
                            "fields": [{"name": "spot", "kind": "choice", "choices": front}]})
            return out
        if s.phase in ("cameras", "storm-camera"):
            how = s.queue[0][1]
            colour = s.players[p]
            mine = sorted(v for _, o, v in s.cameras if o == colour)
            if how == "place":
                values = [v for v in self.box.start_cameras if v not in mine]
            elif how == "storm":
                values = [self.box.storm_camera]
            else:
                values = mine
            spots = empty if how in ("castle", "storm") else front
            out = [{"type": "camera", "label": f"{colour.capitalize()}: camera",
                    "fields": [{"name": "value", "kind": "choice", "choices": values},
                               {"name": "spot", "kind": "choice", "choices": spots}]}]
            if how in ("may", "castle"):
                out.append({"type": "pass", "label": "Pass"})
            return out
        if s.phase == "reveal":
            values = sorted(set(self.box.player_cards) | set(self.box.neutral_cards))
            fields = [{"name": "cards", "kind": "dice", "count": len(s.card_players), "choices": values,
                       "labels": [s.players[q] for q in s.card_players]}]
            if len(s.players) == 2:
                left = sorted(set((Counter(self.box.neutral_cards) - Counter(s.neutral_up)).elements()))
                fields.append({"name": "neutral", "kind": "choice", "choices": left})
            return [{"type": "reveal", "label": "Reveal", "fields": fields}]
        if s.phase == "bagpipes":
            return [{"type": "bagpipes", "label": "Bagpipes: one more space", "fixed": {"use": True}},
                    {"type": "bagpipes", "label": "No", "fixed": {"use": False}}]
        if s.phase == "photos":
            out = []
            deck = [k for k, n in zip(KINDS, s.deck) if n]
            for k in dict.fromkeys(s.display):
                entry = {"type": "take-photo", "label": f"Take the face-up {k}", "fixed": {"source": "display", "kind": k}}
                if deck:
                    entry["fields"] = [{"name": "refill", "kind": "choice", "choices": deck}]
                out.append(entry)
            if deck:
                out.append({"type": "take-photo", "label": "Take the top of the deck", "fixed": {"source": "deck"},
                            "fields": [{"name": "kind", "kind": "choice", "choices": deck}]})
            return out
        bidders = [s.players[q] for q, _ in s.queue]
        return [{"type": "auction", "label": "Bids", "fields": [
            {"name": "bids", "kind": "per-player-number", "keys": bidders, "min": 0,
             "max": max(self.possible_bids(s, s.idx(bidders[0]))), "default": 0}]}]

    def setup_form(self) -> dict:
        return {"type": "new-game", "label": "New game", "fields": [
            {"name": "players", "kind": "list", "choices": list(COLOURS), "default": ["blue", "red", "green"]},
            {"name": "display", "kind": "dice", "count": 3, "choices": list(KINDS), "default": ["head", "body", "tail"],
             "help": "the three photo cards turned face up"},
            {"name": "storm", "kind": "bool", "help": "Variant Storm! (auction)"},
            {"name": "free_hotel", "kind": "bool", "help": "Variant Free hotel"}]}

    def view(self, s: WState | None) -> dict:
        base = {"game": self.id, "name": self.name, "rulebook": self.rulebook, "box": self.box.name,
                "prompt": self.prompt(s), "legal": self.legal_actions(s), "setup": self.setup_form()}
        if s is None:
            return {**base, "started": False}
        return {**base, "started": True, "round": s.round, "phase": s.phase, "start_player": s.players[s.start],
                "nessie": s.nessie, "area": self.box.area_of(s.nessie).name, "small_nessie": s.small,
                "score_end": self.box.score_end, "display": list(s.display), "deck": dict(zip(KINDS, s.deck)),
                "reporters": dict(s.reporters), "neutral_up": list(s.neutral_up),
                "options": {"storm": s.storm, "free_hotel": s.free_hotel},
                "cameras": [{"spot": x, "owner": o, "value": v} for x, o, v in s.cameras],
                "winners": self.winners(s),
                "players": [{"name": c, "score": s.scores[i], "photos": dict(zip(KINDS, s.photos[i])),
                             "photo_points": set_points(*s.photos[i]),
                             "cameras": ", ".join(f"{v}@{x}" for x, o, v in s.cameras if o == c),
                             "hand": sorted(self.hand(s, i).elements())} for i, c in enumerate(s.players)],
                "summary": [f"Big Nessie on {s.nessie} ({self.box.area_of(s.nessie).name}); small Nessie on "
                            f"{s.small} of {self.box.score_end}"] + list(s.events)}

    parse_action = staticmethod(action_from_json)
    action_to_json = staticmethod(action_to_json)

    @staticmethod
    def is_setup(action: Action) -> bool:
        return isinstance(action, NewGame)
