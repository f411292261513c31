"""The humans-versus-monsters skirmish: the monster player's turn and the ambush. Pure.

The rulebook fragment (seeds/004_27c800e34d0c540b.txt, in Russian) describes the monster player's
actions, the 18-token pool, the stack limit and the ambush; the human player's own turn is not in it
and is played on the board (the companion is only told which monsters were killed).

Turn: monster actions (``new-stack``, ``grow``, ``move``; 3 or fewer) -> ``end-actions`` ->
ambushes (each stack at most once, then ``retreat`` when the humans won) -> ``end-turn`` (stacks cut
to six) -> the humans' turn (``killed``) -> ``humans-done``.

    >>> from . import make_game
    >>> game = make_game()
    >>> s = game.apply(game.apply(None, NewGame()), NewStack("E1"))
    >>> s.stacks, s.pool
    ((('E1', 2),), 16)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.errors import IllegalAction

from .actions import (Action, Ambush, EndActions, EndTurn, Grow, HumansDone, Killed, Move, NewGame, NewStack,
                      Retreat, action_from_json, action_to_json)
from .box import AmbushBox

R_ACTIONS = ("Действия монстров: 'каждый монстр может выполнить 3 (или меньше) действия' "
             "(each monster may perform 3 or fewer actions)")
R_NEW = ("1. 'Возьмите 2 жетона монстров и поместите их на окончание любой тропинки ... новая стопка всегда может "
         "создаваться на гексе корабля' (take 2 monster tokens and put them on the end of any path; a new stack can "
         "always be made on the ship's hex)")
R_GROW = "2. 'Возьмите 2 жетона монстров и добавьте их в стопку монстров' (take 2 monster tokens and add them to a stack)"
R_MOVE = ("3. 'каждый пройденный гекс уменьшает стопку монстров на 1' (every hex passed takes one monster from the "
          "stack)")
R_POOL = ("'18 жетонов монстров – это предел. Если все жетоны уже в джунглях, добавлять новых монстров в игру нельзя' "
          "(18 monster tokens are the limit; when all are in the jungle no new monsters can be added)")
R_AMBUSH = ("Засада: 'После выполнения действий монстров, монстры, находящиеся на гексе с людьми ... могут напасть "
            "из засады' (after the monster actions, monsters on a hex with humans may ambush)")
R_ONCE = ("'Каждая стопка монстров может напасть из засады только один раз за ход' "
          "(each stack may ambush only once a turn)")
R_RESULT = ("Результат засады: 'Люди сильнее: один монстр убит, а остальные отступают назад на 1 гекс' "
            "(humans stronger: one monster is killed, the rest fall back one hex)")
R_LIMIT = ("'если в конце хода их будет больше 6, \"лишних\" придётся убрать' "
           "(more than 6 at the end of the turn: the extra ones are removed)")


@dataclass(frozen=True, slots=True)
class AmbushResult:
    hex: str
    monster_die: int
    human_dice: tuple[int, int]
    stack: int
    monster_strength: int
    human_strength: int
    by_soldiers: bool  # the humans counted their soldiers instead of the dice
    outcome: str  # "tie", "monsters", "humans"
    source: str

    def describe(self) -> str:
        m = f"monsters {self.monster_strength} (stack {self.stack}, die {self.monster_die})"
        how = "soldiers on the hex" if self.by_soldiers else f"dice {self.human_dice[0]} and {self.human_dice[1]}"
        h = f"humans {self.human_strength} ({how})"
        verdict = {"tie": "Tie: the soldiers fall back one hex.",
                   "monsters": "Monsters stronger: one soldier is killed (the human player chooses), the rest fall "
                               "back one hex.",
                   "humans": "Humans stronger: one monster is killed, the rest fall back one hex."}[self.outcome]
        return f"Ambush on {self.hex}: {m} against {h}. {verdict}"


@dataclass(frozen=True, slots=True)
class SkirmishState:
    actions_per_turn: int
    turn: int
    phase: str  # "monsters", "ambush", "retreat", "humans"
    actions_left: int
    stacks: tuple[tuple[str, int], ...]  # (hex, tokens), sorted by hex
    ambushed: frozenset[str] = frozenset()  # hexes whose stack has ambushed this turn
    retreat_from: str | None = None
    last: AmbushResult | None = None
    trimmed: int = 0  # tokens removed at the end of the last monster turn
    killed: int = 0  # monsters killed so far
    tokens: int = 18

    @property
    def on_board(self) -> int:
        return sum(n for _, n in self.stacks)

    @property
    def pool(self) -> int:
        return self.tokens - self.on_board

    def at(self, hex_: str) -> int:
        return dict(self.stacks).get(hex_, 0)


def _put(stacks, hex_: str, n: int) -> tuple[tuple[str, int], ...]:
    d = dict(stacks)
    if n > 0:
        d[hex_] = n
    else:
        d.pop(hex_, None)
    return tuple(sorted(d.items()))


def monster_strength(stack: int, die: int, limit: int = 6) -> int:
    """The stack's size (counted up to the limit: at most 7 in all) +1 when the die equals the stack size."""
    return min(stack, limit) + (1 if die == stack else 0)


def human_strength(dice: tuple[int, int], soldiers: int, sergeant: bool, grenadier: bool) -> tuple[int, bool]:
    """The higher die +1 with a Sergeant +1 in a grenadier's view, or the soldiers' count when that is more."""
    rolled = max(dice) + int(sergeant) + int(grenadier)
    return (soldiers, True) if soldiers > rolled else (rolled, False)


class MonsterAmbush:
    id = "monster-ambush"
    name = "Humans versus monsters: the ambush"
    rulebook = "004_27c800e34d0c540b.txt"

    def __init__(self, box: AmbushBox):
        self.box = box

    def apply(self, s: SkirmishState | None, a: Action) -> SkirmishState:
        if isinstance(a, NewGame):
            if s is not None:
                raise IllegalAction("a game is already under way; start a new game instead")
            n = a.actions_per_turn or self.box.actions_per_turn
            return SkirmishState(n, 1, "monsters", n, (), tokens=self.box.tokens)
        if s is None:
            raise IllegalAction("no game yet: set one up first")
        handler = {NewStack: self._new_stack, Grow: self._grow, Move: self._move, EndActions: self._end_actions,
                   Ambush: self._ambush, Retreat: self._retreat, EndTurn: self._end_turn, Killed: self._killed,
                   HumansDone: self._humans_done}.get(type(a))
        if handler is None:
            raise IllegalAction(f"{type(a).__name__} is not an action of this game")
        return handler(s, a)

    # -- the monster actions -------------------------------------------------------------------

    def _hex(self, h: str) -> str:
        if h not in self.box.map:
            raise IllegalAction(f"{h} is not a hex of this map ({self.box.map.columns[0]}1 to "
                                f"{self.box.map.columns[-1]}{self.box.map.rows})")
        return h

    def _monster_action(self, s: SkirmishState) -> None:
        if s.phase != "monsters":
            raise IllegalAction(f"no monster actions now: {self.prompt(s)}", R_AMBUSH if s.phase == "ambush" else R_ACTIONS)
        if s.actions_left <= 0:
            raise IllegalAction(f"the monsters have used their {s.actions_per_turn} actions this turn", R_ACTIONS)

    def _two_from_pool(self, s: SkirmishState) -> None:
        if s.pool < 2:
            raise IllegalAction(f"only {s.pool} monster token(s) left in the pool; an action takes 2", R_POOL)

    def _new_stack(self, s: SkirmishState, a: NewStack) -> SkirmishState:
        self._monster_action(s)
        h = self._hex(a.hex)
        if h != self.box.map.ship and h not in self.box.map.path_ends:
            raise IllegalAction(f"{h} is neither the end of a path ({', '.join(self.box.map.path_ends)}) nor the "
                                f"ship ({self.box.map.ship})", R_NEW)
        if s.at(h):
            raise IllegalAction(f"monsters already stand on {h}: grow that stack instead (action 2)", R_NEW)
        self._two_from_pool(s)
        return replace(s, stacks=_put(s.stacks, h, 2), actions_left=s.actions_left - 1)

    def _grow(self, s: SkirmishState, a: Grow) -> SkirmishState:
        self._monster_action(s)
        h = self._hex(a.hex)
        if not s.at(h):
            raise IllegalAction(f"no monster stack on {h} to grow", R_GROW)
        self._two_from_pool(s)
        return replace(s, stacks=_put(s.stacks, h, s.at(h) + 2), actions_left=s.actions_left - 1)

    def _move(self, s: SkirmishState, a: Move) -> SkirmishState:
        self._monster_action(s)
        src, dst = self._hex(a.origin), self._hex(a.to)
        n = s.at(src)
        if not n:
            raise IllegalAction(f"no monster stack on {src}", R_MOVE)
        d = self.box.map.distance(src, dst)
        if d == 0:
            raise IllegalAction("a move goes to another hex", R_MOVE)
        if d >= n:
            raise IllegalAction(f"{src} to {dst} passes {d} hex(es) and would cost the whole stack of {n}", R_MOVE)
        stacks = _put(s.stacks, src, 0)
        stacks = _put(stacks, dst, n - d + s.at(dst))  # 'все они объединяются в одну стопку' (they merge)
        return replace(s, stacks=stacks, actions_left=s.actions_left - 1)

    def _end_actions(self, s: SkirmishState, a: EndActions) -> SkirmishState:
        if s.phase != "monsters":
            raise IllegalAction(f"not now: {self.prompt(s)}", R_AMBUSH)
        return replace(s, phase="ambush")

    # -- the ambush ----------------------------------------------------------------------------

    def _ambush(self, s: SkirmishState, a: Ambush) -> SkirmishState:
        if s.phase != "ambush":
            raise IllegalAction(f"no ambush now: {self.prompt(s)}", R_AMBUSH)
        h = self._hex(a.hex)
        n = s.at(h)
        if not n:
            raise IllegalAction(f"no monsters on {h} to ambush from", R_AMBUSH)
        if h in s.ambushed:
            raise IllegalAction(f"the stack on {h} has already ambushed this turn", R_ONCE)
        ms = monster_strength(n, a.monster_die, self.box.stack_limit)
        hs, by_soldiers = human_strength(a.human_dice, a.soldiers, a.sergeant, a.grenadier)
        outcome = "tie" if ms == hs else "monsters" if ms > hs else "humans"
        result = AmbushResult(h, a.monster_die, a.human_dice, n, ms, hs, by_soldiers, outcome, a.source)
        s = replace(s, last=result, ambushed=s.ambushed | {h})
        if outcome == "humans":
            s = replace(s, stacks=_put(s.stacks, h, n - 1), killed=s.killed + 1)
            if n - 1 > 0:
                return replace(s, phase="retreat", retreat_from=h)
        return s

    def _retreat(self, s: SkirmishState, a: Retreat) -> SkirmishState:
        if s.phase != "retreat":
            raise IllegalAction(f"no stack is falling back now: {self.prompt(s)}", R_RESULT)
        dst = self._hex(a.to)
        src = s.retreat_from
        if self.box.map.distance(src, dst) != 1:
            raise IllegalAction(f"{dst} is not next to {src}: the monsters fall back one hex", R_RESULT)
        n = s.at(src)
        stacks = _put(_put(s.stacks, src, 0), dst, n + s.at(dst))
        return replace(s, stacks=stacks, phase="ambush", retreat_from=None, ambushed=(s.ambushed - {src}) | {dst})

    def _end_turn(self, s: SkirmishState, a: EndTurn) -> SkirmishState:
        if s.phase not in ("monsters", "ambush"):
            raise IllegalAction(f"not now: {self.prompt(s)}", R_RESULT)
        limit = self.box.stack_limit
        trimmed = sum(max(0, n - limit) for _, n in s.stacks)
        stacks = tuple((h, min(n, limit)) for h, n in s.stacks)
        return replace(s, phase="humans", stacks=stacks, trimmed=trimmed, ambushed=frozenset(), actions_left=0)

    # -- the humans' turn ----------------------------------------------------------------------

    def _killed(self, s: SkirmishState, a: Killed) -> SkirmishState:
        if s.phase != "humans":
            raise IllegalAction(f"monsters are killed in the humans' turn or in an ambush: {self.prompt(s)}")
        h = self._hex(a.hex)
        if s.at(h) < a.count:
            raise IllegalAction(f"only {s.at(h)} monster(s) on {h}")
        # 'Убитые монстры могут появиться снова' (killed monsters may appear again): back to the pool.
        return replace(s, stacks=_put(s.stacks, h, s.at(h) - a.count), killed=s.killed + a.count)

    def _humans_done(self, s: SkirmishState, a: HumansDone) -> SkirmishState:
        if s.phase != "humans":
            raise IllegalAction(f"not now: {self.prompt(s)}")
        return replace(s, phase="monsters", turn=s.turn + 1, actions_left=s.actions_per_turn, last=None, trimmed=0)

    # -- what the table is told ----------------------------------------------------------------

    def prompt(self, s: SkirmishState | None) -> str:
        if s is None:
            return "Set up a skirmish."
        if s.phase == "monsters":
            return (f"Turn {s.turn}, monster player: {s.actions_left} action(s) left (new stack, grow, move); "
                    f"{s.pool} token(s) in the pool.")
        if s.phase == "ambush":
            head = (s.last.describe() + " ") if s.last else ""
            return head + "Ambushes: choose a stack on a hex with soldiers and throw the dice, or end the turn."
        if s.phase == "retreat":
            return s.last.describe() + f" Move the {s.at(s.retreat_from)} surviving monster(s) back one hex."
        cut = f" {s.trimmed} token(s) over six were removed." if s.trimmed else ""
        return f"Turn {s.turn}: the humans' turn.{cut} Tell the companion of monsters killed, then Done."

    def legal_actions(self, s: SkirmishState | None) -> list[dict]:
        if s is None:
            return [self.setup_form()]
        m = self.box.map
        stacks = [h for h, _ in s.stacks]
        out: list[dict] = []
        if s.phase == "monsters":
            if s.actions_left and s.pool >= 2:
                free = [h for h in m.path_ends + (m.ship,) if not s.at(h)]
                if free:
                    out.append({"type": "new-stack", "label": "New stack of 2",
                                "fields": [{"name": "hex", "kind": "choice", "choices": free}]})
                if stacks:
                    out.append({"type": "grow", "label": "Grow a stack by 2",
                                "fields": [{"name": "hex", "kind": "choice", "choices": stacks}]})
            movable = [h for h, n in s.stacks if n >= 2]
            if s.actions_left and movable:
                out.append({"type": "move", "label": "Move a stack",
                            "fields": [{"name": "origin", "kind": "choice", "choices": movable},
                                       {"name": "to", "kind": "choice", "choices": list(m.hexes)}]})
            out.append({"type": "end-actions", "label": "Actions done: ambushes"})
        elif s.phase == "ambush":
            ready = [h for h in stacks if h not in s.ambushed]
            if ready:
                out.append({"type": "ambush", "label": "Ambush!", "fields": [
                    {"name": "hex", "kind": "choice", "choices": ready},
                    {"name": "monster_die", "kind": "choice", "choices": [1, 2, 3, 4, 5, 6]},
                    {"name": "human_dice", "kind": "dice", "count": 2, "choices": [1, 2, 3, 4, 5, 6]},
                    {"name": "soldiers", "kind": "number", "min": 1, "max": 30, "default": 1},
                    {"name": "sergeant", "kind": "bool"}, {"name": "grenadier", "kind": "bool"}]})
            out.append({"type": "end-turn", "label": "End the monster turn"})
        elif s.phase == "retreat":
            out.append({"type": "retreat", "label": "Fall back to",
                        "fields": [{"name": "to", "kind": "choice", "choices": m.neighbours(s.retreat_from)}]})
        else:
            if stacks:
                out.append({"type": "killed", "label": "Monster killed on",
                            "fields": [{"name": "hex", "kind": "choice", "choices": stacks}]})
            out.append({"type": "humans-done", "label": "Humans' turn done"})
        return out

    def setup_form(self) -> dict:
        return {"type": "new-game", "label": "New skirmish",
                "fields": [{"name": "actions_per_turn", "kind": "number", "min": 1, "max": 20,
                            "default": self.box.actions_per_turn}]}

    def view(self, s: SkirmishState | None) -> dict:
        base = {"game": self.id, "name": self.name, "rulebook": self.rulebook, "box": self.box.name,
                "prompt": self.prompt(s), "legal": self.legal_actions(s), "setup": self.setup_form()}
        if s is None:
            return {**base, "started": False}
        last = None
        if s.last:
            r = s.last
            last = {"hex": r.hex, "monster_die": r.monster_die, "human_dice": list(r.human_dice), "stack": r.stack,
                    "monster_strength": r.monster_strength, "human_strength": r.human_strength,
                    "by_soldiers": r.by_soldiers, "outcome": r.outcome, "source": r.source, "text": r.describe()}
        return {**base, "started": True, "turn": s.turn, "phase": s.phase, "actions_left": s.actions_left,
                "pool": s.pool, "on_board": s.on_board, "killed": s.killed, "trimmed": s.trimmed,
                "stacks": [{"hex": h, "tokens": n, "ambushed": h in s.ambushed} for h, n in s.stacks],
                "players": [{"name": f"stack on {h}", "tokens": n} for h, n in s.stacks],
                "last_ambush": last,
                "summary": [f"Pool: {s.pool} of {s.tokens} tokens", f"Monsters killed: {s.killed}"]
                + ([last["text"]] if last else [])}

    parse_action = staticmethod(action_from_json)
    action_to_json = staticmethod(action_to_json)

    @staticmethod
    def is_setup(action: Action) -> bool:
        return isinstance(action, NewGame)
