"""Monsters of Loch Lomond rules: the score keeper. Actions in, state out; no I/O, clock or chance.

The companion keeps the four-round score sheet: it counts each clan at the end of a round
(Missionaries convert Priests of Forvie, Monsters are cards worth 4 and more), judges the FREEDOM!!
call (Victory Token won, set aside, or 8 penalty points), hands out Seer Stone and Baby Monster
Tokens, and names the winner after four rounds.

    >>> game = LochLomond(default_values())
    >>> s = game.apply(None, NewGame(("Ann", "Bob")))
    >>> game.prompt(s)
    'Round 1 of 4: Ann starts. Call FREEDOM!! when a clan is free of Monsters.'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from companion.errors import IllegalAction

from .actions import (CLAN_CARDS, TOKEN_CARD, Action, Freedom, NewGame, PlayToken, ScoreRound, action_from_json,
                      action_to_json)
from .box import CardValues

RULE_FREEDOM = ("FREEDOM!!: 'As soon as you believe your clan is free of any monsters, and you have the lowest "
                "amount of points, you call out \"FREEDOM!!\" at the start of your turn.'")
RULE_LAST = ("Last Round: ''Baby Monster Token' or the action of 'Red Cap' are not allowed during the last round.'")
RULE_BABY = ("Baby Monster Token: 'Play the Baby Monster Token by placing the card open in one of your rivals' clans.'")
RULE_COUNT = "Counting the Score: 'After the round is finished, every player counts their total number of points in their clan.'"


@dataclass(frozen=True, slots=True)
class ClanScore:
    """One player's line on the score sheet for one round."""

    player: str
    cards: tuple[str, ...]
    points: int  # the clan's points
    monsters: int
    converted: int  # Priests of Forvie converted by a Missionary
    penalty: int  # 8 for an incorrect FREEDOM!!
    victory_token: int | None  # the token's value, when won this round
    seer_stones: int  # tokens received
    baby_monsters: int

    @property
    def total(self) -> int:
        return self.points + self.penalty


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    caller: str
    outcome: str  # "won", "set-aside", "incorrect"
    token_value: int
    scores: tuple[ClanScore, ...]


@dataclass(frozen=True, slots=True)
class LomondState:
    players: tuple[str, ...]
    round: int
    starter: str
    caller: str | None  # who called FREEDOM!! this round (the last round is under way)
    seer_stones: tuple[int, ...]  # saved Tokens, indexed like players
    baby_monsters: tuple[int, ...]
    babies_placed: int  # Baby Monster Tokens lying in clans this round
    results: tuple[RoundResult, ...] = ()
    over: bool = False

    def index(self, player: str) -> int:
        return self.players.index(player)


class LochLomond:
    """The score keeper for Monsters of Loch Lomond on one set of card values."""

    id = "loch-lomond"
    name = "Monsters of Loch Lomond"
    rulebook = "003_196e4e5c7f3f958b.txt"

    def __init__(self, box: CardValues):
        self.box = box

    # -- the fold ------------------------------------------------------------------------------

    def apply(self, s: LomondState | None, action: Action) -> LomondState:
        if isinstance(action, NewGame):
            if s is not None:
                raise IllegalAction("a game is already under way; start a new game instead")
            n = len(action.players)
            if not self.box.min_players <= n <= self.box.max_players:
                raise IllegalAction(f"{n} player(s): this box is set up for {self.box.min_players} to "
                                    f"{self.box.max_players} (four cards in every clan)", "Set-up & Start of the Game")
            zeros = (0,) * n
            return LomondState(action.players, 1, action.players[0], None, zeros, zeros, 0)
        if s is None:
            raise IllegalAction("no game yet: set one up first")
        if s.over:
            raise IllegalAction("the game is over: 'The game ends after four rounds, when each Victory Token is either "
                                "won or discarded.'", "End of the Game")
        if isinstance(action, Freedom):
            return self._freedom(s, action)
        if isinstance(action, PlayToken):
            return self._play_token(s, action)
        if isinstance(action, ScoreRound):
            return self._score(s, action)
        raise IllegalAction(f"{type(action).__name__} is not a Monsters of Loch Lomond action")

    def _player(self, s: LomondState, name: str, what: str = "player") -> int:
        if name not in s.players:
            raise IllegalAction(f"{name!r} does not play; the {what} is one of {', '.join(s.players)}")
        return s.index(name)

    def _freedom(self, s: LomondState, a: Freedom) -> LomondState:
        self._player(s, a.player)
        if s.caller is not None:
            raise IllegalAction(f"{s.caller} has already called FREEDOM!! this round; the others take their last turn",
                                "Last Round: 'After \"FREEDOM!!\" is called, every other player takes one last turn.'")
        return replace(s, caller=a.player)

    def _play_token(self, s: LomondState, a: PlayToken) -> LomondState:
        i = self._player(s, a.player)
        if a.token == "seer-stone":
            if a.target is not None:
                raise IllegalAction("a Seer Stone is not played into a clan (no target)",
                                    "Seer Stone Token: 'provides you the opportunity to see a card of your choice'")
            if s.seer_stones[i] == 0:
                raise IllegalAction(f"{a.player} has no Seer Stone Token",
                                    "Seer Stone Token: 'you will receive one Seer Stone Token for every Brahan Seer'")
            if a.player == s.caller:
                raise IllegalAction(f"{a.player} called FREEDOM!! and takes no more turns this round", RULE_FREEDOM)
            return replace(s, seer_stones=_dec(s.seer_stones, i))
        if s.caller is not None:
            raise IllegalAction("no Baby Monster Token in the last round", RULE_LAST)
        if s.baby_monsters[i] == 0:
            raise IllegalAction(f"{a.player} has no Baby Monster Token",
                                "Baby Monster Token: 'you receive one Baby Monster Token for every Monster Egg'")
        if a.target is None:
            raise IllegalAction("name the rival whose clan gets the Baby Monster (target)", RULE_BABY)
        j = self._player(s, a.target, "target")
        if j == i:
            raise IllegalAction("a Baby Monster Token goes into a rival's clan, not your own", RULE_BABY)
        return replace(s, baby_monsters=_dec(s.baby_monsters, i), babies_placed=s.babies_placed + 1)

    # -- counting the score --------------------------------------------------------------------

    def clan_score(self, player: str, cards: tuple[str, ...]) -> ClanScore:
        """Count one clan (before the FREEDOM!! judgement)."""
        box = self.box
        n = Counter("baby-monster" if c == TOKEN_CARD else c for c in cards)
        converted = min(n["missionary"], n["priest-of-forvie"])  # 'One Missionary can only convert one Priest'
        points, monsters = 0, 0
        for cid, k in n.items():
            value = box.cards[cid].value
            plain = k - converted if cid == "priest-of-forvie" else k
            points += value * plain
            if value >= box.monster_from:
                monsters += plain
        points += converted * box.converted_priest_value
        if box.converted_priest_value >= box.monster_from:
            monsters += converted
        return ClanScore(player, cards, points, monsters, converted, 0, None, n["brahan-seer"], n["monster-egg"])

    def _score(self, s: LomondState, a: ScoreRound) -> LomondState:
        if s.caller is None:
            raise IllegalAction("nobody has called FREEDOM!! yet: the round is still being played", RULE_FREEDOM)
        if set(a.clans) != set(s.players):
            missing = sorted(set(s.players) - set(a.clans))
            extra = sorted(set(a.clans) - set(s.players))
            raise IllegalAction("give the clan of every player and nobody else"
                                + (f"; missing {', '.join(missing)}" if missing else "")
                                + (f"; not playing {', '.join(extra)}" if extra else ""), RULE_COUNT)
        total = Counter(c for cards in a.clans.values() for c in cards)
        for cid, k in total.items():
            if cid == TOKEN_CARD:
                if k > s.babies_placed:
                    raise IllegalAction(f"{k} Baby Monster Token(s) in the clans, but {s.babies_placed} were played "
                                        "this round", RULE_BABY)
            elif k > self.box.cards[cid].count:
                raise IllegalAction(f"{k} × {self.box.cards[cid].label} in the clans, but the deck has only "
                                    f"{self.box.cards[cid].count}", "Card Overview")
        scores = [self.clan_score(p, a.clans[p]) for p in s.players]
        ci = s.index(s.caller)
        caller = scores[ci]
        token = self.box.victory_tokens[s.round - 1]
        if caller.monsters:
            outcome = "incorrect"
            scores[ci] = replace(caller, penalty=self.box.wrong_freedom_penalty)
        elif all(caller.points <= o.points for o in scores):  # 'You called out "FREEDOM!!" first' wins a tie
            outcome = "won"
            scores[ci] = replace(caller, victory_token=token)
        else:
            outcome = "set-aside"
        result = RoundResult(s.round, s.caller, outcome, token, tuple(scores))
        seers = tuple(k + sc.seer_stones for k, sc in zip(s.seer_stones, scores))
        babies = tuple(k + sc.baby_monsters for k, sc in zip(s.baby_monsters, scores))
        over = s.round == self.box.rounds
        return replace(s, round=s.round if over else s.round + 1, starter=s.caller, caller=None, seer_stones=seers,
                       baby_monsters=babies, babies_placed=0, results=s.results + (result,), over=over)

    def totals(self, s: LomondState) -> dict[str, int]:
        """Points so far: every round's clan points and penalties, plus the Victory Tokens won."""
        out = {p: 0 for p in s.players}
        for r in s.results:
            for sc in r.scores:
                out[sc.player] += sc.total + (sc.victory_token or 0)
        return out

    def winners(self, s: LomondState) -> list[str]:
        if not s.over:
            return []
        t = self.totals(s)
        best = min(t.values())
        return [p for p in s.players if t[p] == best]

    # -- what the table is told ----------------------------------------------------------------

    def prompt(self, s: LomondState | None) -> str:
        if s is None:
            return "Set up a game: name the players clockwise, the oldest and wisest first."
        if s.over:
            w = self.winners(s)
            return ("Game over. " + (" and ".join(w) + (" share the win" if len(w) > 1 else " wins"))
                    + " with the lowest score.")
        head = f"Round {s.round} of {self.box.rounds}"
        if s.caller is None:
            return f"{head}: {s.starter} starts. Call FREEDOM!! when a clan is free of Monsters."
        return (f"{head}: {s.caller} called FREEDOM!!; every other player takes one last turn. "
                "Then enter the cards in every clan.")

    def legal_actions(self, s: LomondState | None) -> list[dict]:
        if s is None:
            return [self.setup_form()]
        if s.over:
            return []
        out: list[dict] = []
        if s.caller is None:
            out.append({"type": "freedom", "label": "FREEDOM!!",
                        "fields": [{"name": "player", "kind": "choice", "choices": list(s.players)}]})
        else:
            out.append({"type": "score-round", "label": "Count the clans",
                        "fields": [{"name": "clans", "kind": "per-player-list", "keys": list(s.players),
                                    "choices": list(CLAN_CARDS)}]})
        for i, p in enumerate(s.players):
            if s.seer_stones[i] and p != s.caller:
                out.append({"type": "play-token", "label": f"{p}: play a Seer Stone",
                            "fixed": {"player": p, "token": "seer-stone"}})
            if s.baby_monsters[i] and s.caller is None:
                out.append({"type": "play-token", "label": f"{p}: play a Baby Monster",
                            "fixed": {"player": p, "token": "baby-monster"},
                            "fields": [{"name": "target", "kind": "choice", "choices": [q for q in s.players if q != p]}]})
        return out

    def setup_form(self) -> dict:
        return {"type": "new-game", "label": "New game",
                "fields": [{"name": "players", "kind": "text-list", "default": ["Ann", "Bob", "Cat"],
                            "help": f"{self.box.min_players}-{self.box.max_players} names, clockwise, the starter first"}]}

    def view(self, s: LomondState | None) -> dict:
        base = {"game": self.id, "name": self.name, "rulebook": self.rulebook, "box": self.box.name,
                "prompt": self.prompt(s), "legal": self.legal_actions(s), "setup": self.setup_form()}
        if s is None:
            return {**base, "started": False}
        totals = self.totals(s)
        sheet = [{"round": r.round, "caller": r.caller, "outcome": r.outcome, "token": r.token_value,
                  "scores": [{"player": sc.player, "points": sc.points, "monsters": sc.monsters,
                              "converted": sc.converted, "penalty": sc.penalty, "victory_token": sc.victory_token,
                              "total": sc.total} for sc in r.scores]} for r in s.results]
        return {**base, "started": True, "round": s.round, "starter": s.starter, "caller": s.caller, "over": s.over,
                "winners": self.winners(s), "sheet": sheet,
                "players": [{"name": p, "total": totals[p], "seer_stones": s.seer_stones[i],
                             "baby_monsters": s.baby_monsters[i],
                             "victory_tokens": [sc.victory_token for r in s.results for sc in r.scores
                                                if sc.player == p and sc.victory_token is not None]}
                            for i, p in enumerate(s.players)],
                "summary": [f"Round {r.round}: {r.caller} called FREEDOM!! — "
                            + {"won": f"Victory Token {r.token_value} won",
                               "set-aside": f"Victory Token {r.token_value} set aside (not the lowest)",
                               "incorrect": f"incorrect, {self.box.wrong_freedom_penalty} penalty points; "
                                            f"token {r.token_value} set aside"}[r.outcome] for r in s.results]}

    # -- the Game protocol ---------------------------------------------------------------------

    parse_action = staticmethod(action_from_json)
    action_to_json = staticmethod(action_to_json)

    @staticmethod
    def is_setup(action: Action) -> bool:
        return isinstance(action, NewGame)


def _dec(values: tuple[int, ...], i: int) -> tuple[int, ...]:
    return values[:i] + (values[i] - 1,) + values[i + 1:]


def default_values() -> CardValues:
    """The house-default card values (reads the packaged TOML; for doctests and tests)."""
    from . import load_box

    return load_box()
