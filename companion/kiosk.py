"""Kiosk mode: solitaire Nessie Hunt for museum visitors on three arcade buttons, with an attract loop.

The buttons (docs/kiosk.md has the wiring and what a visitor sees):

    GO    the big one: throw the die, confirm the highlighted choice, start a game, hurry the kiosk on
    NEXT  move the highlight to the next choice (purchases offer at most three)
    UNDO  take back the last purchase, until the next throw (never a throw: no re-rolling)

Everything else a player of the board game decides or does at the table -- LOGISTICS cards dealt from
a stacked deck, evidence cards drawn, where each transparency lies and so which pieces cover the
monster, loan repayments, trump cards -- the kiosk does for the visitor with the simulator's
strategies (``companion/sim``), one visible step every ``auto_step_s``.

Nobody playing: an attract loop, a self-playing solitaire on its own in-memory table (so demo games
never reach the high-score table), shown with the high scores. A visitor who walks away is asked
"Still playing?" after ``still_playing_s`` without a press, and the kiosk goes back to the attract
loop ``reset_s`` later. :class:`IdleTimer` is that two-tier timeout as a pure, clock-injected
state machine; :class:`KioskController` takes the clock as an argument too (``tick(now)``), and
only :meth:`KioskController.start` runs a thread that feeds it ``time.monotonic()``.

    >>> timer = IdleTimer(still_playing_s=30, reset_s=10, now=0)
    >>> timer.poll(29.9), timer.poll(30), timer.poll(40)
    ('active', 'asking', 'expired')
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from typing import Callable

from companion.errors import CompanionError
from companion.games.nessie_hunt import Buy, EndTurn, NewGame, Step, Throw
from companion.inputs.base import InputEvent
from companion.kiosk_config import SOLITAIRE_EXPEDITIONS, KioskSettings
from companion.store import EventStore
from companion.table import Broadcast, Table

log = logging.getLogger(__name__)

BUTTONS = ("go", "next", "undo")
MODES = ("attract", "playing", "asking", "over")


# -- the two-tier timeout ------------------------------------------------------------------------

class IdleTimer:
    """No press for ``still_playing_s``: "asking"; ``reset_s`` after that: "expired". Pure: the
    caller passes the time (seconds on any monotonic clock) to every call.

    >>> t = IdleTimer(10, 5, now=100)
    >>> t.poll(109), t.seconds_left(112), t.poll(112)
    ('active', 3.0, 'asking')
    >>> t.touch(112); t.poll(113)
    'active'
    """

    def __init__(self, still_playing_s: float, reset_s: float, now: float):
        if still_playing_s <= 0 or reset_s <= 0:
            raise ValueError("both timeouts must be more than 0 seconds")
        self.still_playing_s, self.reset_s = still_playing_s, reset_s
        self.last_press = now

    def touch(self, now: float) -> None:
        """A press: the visitor is here."""
        self.last_press = max(self.last_press, now)

    def poll(self, now: float) -> str:
        idle = now - self.last_press
        if idle < self.still_playing_s:
            return "active"
        if idle < self.still_playing_s + self.reset_s:
            return "asking"
        return "expired"

    def seconds_left(self, now: float) -> float:
        """Seconds until "expired" (the countdown under "Still playing?")."""
        return max(0.0, self.last_press + self.still_playing_s + self.reset_s - now)


# -- the game played for and with the visitor ----------------------------------------------------

def throw_source(name: str, sources=()) -> str:
    """The game log's word for a device ("gpio", "serial", "camera", "virtual-die", "screen")."""
    from companion.games.nessie_hunt.actions import SOURCES

    if name in SOURCES:
        return name
    kind = next((getattr(s, "kind", "") for s in sources if getattr(s, "name", None) == name), "")
    for word in ("serial", "gpio", "camera", "virtual"):
        if word in kind or word in name:
            return "virtual-die" if word == "virtual" else word
    return "screen"


def _money(n: int) -> str:
    return f"\u00a3{n}"


class KioskController:
    """Turns button presses into moves on the visitor's table and runs the attract loop.

    ``service`` is a :class:`companion.service.Service` on the kiosk's own database (its table is the
    visitor's; its virtual die is the kiosk's die). ``voice`` (optional) gets ``on_view(view)`` for
    each change of the visitor's game. Every public method takes the lock; ``screen()`` is the JSON
    the kiosk page draws, and ``broadcast`` publishes each new screen for the page's live stream.
    """

    def __init__(self, service, settings: KioskSettings | None = None, voice=None,
                 clock: Callable[[], float] = time.monotonic, seed: int | None = None):
        self.service, self.settings = service, (settings or KioskSettings()).validate()
        self.voice, self.clock = voice, clock
        self.table = service.table
        self.game = service.game
        self.broadcast = Broadcast()
        self._lock = threading.RLock()
        self._rng = random.Random(seed)
        self._published = 0
        self.boot = f"{random.SystemRandom().getrandbits(48):012x}"  # a new page state after a restart
        now = clock()
        self.mode = "attract"
        self.timer = IdleTimer(self.settings.still_playing_s, self.settings.reset_s, now)
        self._last_step = now  # when the shown game last moved
        self._over_since = now
        self._helper = None  # a Simulation: the visitor's hands (cards, evidence, placement, coverage)
        self._choices: list[dict] = []
        self._choices_for = None  # the table version the choices were made for
        self._selected = 0
        self._checkpoint: int | None = None  # the action count before the last purchase decision
        self._message = ""
        self._source = "screen"  # the log's word for the device of the last press
        self._demo: Table | None = None
        self._demo_sim = None
        self._demo_over_ticks = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._new_demo()
        self._publish()

    # -- buttons -------------------------------------------------------------------------------

    def handle_input(self, event: InputEvent) -> None:
        """A DiceSource callback (the GPIO board, a serial board): throw = GO, next, undo.
        With ``die = "real"`` a throw's value is the throw; otherwise the kiosk's die decides."""
        button = {"throw": "go", "next": "next", "undo": "undo"}[event.kind]
        try:
            with self._lock:
                self._source = throw_source(event.source, self.service.sources)
                self.press(button, event.value)
        except Exception:  # a button must never take the board's thread down
            log.exception("kiosk: press %s failed", button)

    def press(self, button: str, value: int | None = None, now: float | None = None) -> dict:
        """One press of GO, NEXT or UNDO; returns the new screen."""
        if button not in BUTTONS:
            raise ValueError(f"unknown button {button!r}; buttons are {', '.join(BUTTONS)}")
        with self._lock:
            now = self.clock() if now is None else now
            self.timer.touch(now)
            self._message = ""
            if self.mode == "attract":
                self._start_visitor_game(now)
            elif self.mode == "asking":
                self.mode = "playing"  # the press that answers "Still playing?" does nothing else
            elif self.mode == "over":
                if button == "go":
                    self._start_visitor_game(now)
            else:
                self._play(button, value, now)
            return self._publish()

    def _play(self, button: str, value: int | None, now: float) -> None:
        s = self.table.state
        if s is None or s.step is Step.OVER:
            self._start_visitor_game(now)
            return
        if button == "undo":
            self._undo()
            return
        if self._throw_due(s):
            if button != "go":
                self._message = "Press the big GO button to throw the die."
                return
            # a d12 pin map may send 7-12 or water: on this d6 game that is a plain GO
            real = self.settings.die == "real" and isinstance(value, int) and 1 <= value <= 6
            pips = value if real else self.service.die.roll()
            self._checkpoint = None  # no taking back a purchase once the dice have rolled again
            self._submit(Throw(pips, self._source if real else "virtual-die"))
            self._last_step = now
            return
        if s.step is Step.PURCHASE:
            choices = self._purchase_choices()
            if button == "next":
                self._selected = (self._selected + 1) % len(choices)
                return
            self._decide(choices[self._selected])
            self._last_step = now
            return
        if button == "go":  # an automatic step: hurry it
            self._auto_step(now)
        else:
            self._message = "The companion is playing this step for you; GO hurries it."

    def _undo(self) -> None:
        if self._checkpoint is None:
            self._message = "UNDO takes back your last purchase, until your next throw."
            return
        try:
            while self.table.view()["actions"] > self._checkpoint:
                self.table.undo(origin="kiosk")
        except CompanionError as exc:
            log.warning("kiosk: undo refused: %s", exc)
        self._checkpoint = None
        self._choices_for = None
        self._message = "Purchase taken back: choose again."
        self._note_view()

    # -- the visitor's game ----------------------------------------------------------------------

    def _setup(self) -> NewGame:
        st = self.settings
        return NewGame(1, (st.expedition,), "companion", variant=st.variant, target=st.target, rounds=st.rounds)

    def _start_visitor_game(self, now: float) -> None:
        from companion.sim.runner import Simulation
        from companion.sim.strategies import STRATEGIES

        setup = self._setup()
        self.table.new_game(setup, origin="kiosk")
        self._helper = Simulation(self.game, setup, {self.settings.expedition: STRATEGIES[self.settings.strategy]()},
                                  seed=self._rng.randrange(2**31))
        _lay_issued_sheets(self._helper, self.table.state)
        self._choices_for, self._checkpoint, self._selected = None, None, 0
        self.mode = "playing"
        self.timer.touch(now)
        self._last_step = now
        if self.voice is not None:
            self.voice.reset()
        self._note_view()

    def _throw_due(self, s) -> bool:
        return s.step in (Step.THROW, Step.LOGISTICS_THROW, Step.TRUMP_DIE_OFF)

    def _visitor_decides(self, s) -> bool:
        if s is None or s.step is Step.OVER or self._throw_due(s):
            return True
        return s.step is Step.PURCHASE and not self._repay_due(s)

    def _repay_due(self, s) -> bool:
        """Owing the Sponsor with cash in hand: the kiosk repays first, as the strategy would."""
        name = self.game.purchaser(s)
        e = s.expedition(name)
        return bool(e.sponsor_debt and e.cash and self._helper.strategies[name].repay(s, name))

    def _purchase_choices(self) -> list[dict]:
        """At most three: the kiosk strategy's pick, a bolder pick if it differs, and saving the money."""
        from companion.sim.strategies import STRATEGIES

        if self._choices_for == self.table.version:
            return self._choices
        s = self.table.state
        name = self.game.purchaser(s)
        choices = []
        if not s.bought:
            options = next(a for a in self.game.legal_actions(s) if a["type"] == "buy")["options"]
            rng = self._helper.rng
            seen = set()
            for strategy in (STRATEGIES[self.settings.strategy](), STRATEGIES["greedy"]()):
                pick = strategy.choose_buy(self.game, s, name, options, rng)
                if pick is not None and pick["equipment"] not in seen:
                    seen.add(pick["equipment"])
                    choices.append({"kind": "buy", "equipment": pick["equipment"], "name": pick["label"],
                                    "label": f"Buy {pick['label']}: {_money(pick['price'])}, "
                                             f"then {_money(pick['running_cost'])} a round"})
        choices.append({"kind": "end", "label": "Save your money" if choices else "Carry on (nothing to buy)"})
        self._choices, self._choices_for, self._selected = choices, self.table.version, 0
        return choices

    def _decide(self, choice: dict) -> None:
        s = self.table.state
        self._checkpoint = self.table.view()["actions"]
        if choice["kind"] == "buy":
            self._submit(self._buy(s, choice["equipment"]))
            self._message = f"You bought {choice['name']}. UNDO takes it back until your next throw."
        if self.table.state.step is Step.PURCHASE:
            self._submit(EndTurn())

    def _buy(self, s, equipment: str) -> Buy:
        """A Buy with the transparency laid where the kiosk's strategy lays it (the simulator's way)."""
        sim = self._helper
        name = self.game.purchaser(s)
        strategy = sim.strategies[name]
        pose = strategy.place(self.game, s, name, equipment, sim.layout, sim.rng)
        sim.layout[s.next_piece] = pose[1]
        return Buy(equipment, next(iter(pose[1])) if equipment == "cage" else None)

    def _auto_step(self, now: float) -> None:
        """Play one step the visitor does not decide (cards, evidence, coverage, Next ...)."""
        s = self.table.state
        if self._visitor_decides(s):
            return
        self._submit(self._helper.next_action(s))  # at a purchase, only ever the loan repayment
        self._last_step = now

    def _submit(self, action) -> None:
        try:
            self.table.submit(action, origin="kiosk")
        except CompanionError as exc:
            log.warning("kiosk: %r refused: %s", action, exc)
            self._message = str(exc)
            return
        self._note_view()

    def _note_view(self) -> None:
        s = self.table.state
        if s is not None and s.step is Step.OVER and self.mode == "playing":
            self.mode, self._over_since = "over", self.clock()
        if self.voice is not None:
            try:
                self.voice.on_view(self.table.view())
            except Exception:  # the voice never stops the game
                log.exception("kiosk: voice failed")

    # -- the attract loop ----------------------------------------------------------------------

    def _new_demo(self) -> None:
        from companion.sim.runner import Simulation
        from companion.sim.strategies import STRATEGIES

        expedition = self._rng.choice(SOLITAIRE_EXPEDITIONS)
        setup = NewGame(1, (expedition,), "companion", variant=self.settings.variant, target=self.settings.target,
                        rounds=self.settings.rounds)
        if self._demo is not None:
            self._demo.store.close()
        # Its own small in-memory log, new for every demo game: the demo never reaches the high scores.
        self._demo = Table(self.game, EventStore(":memory:"))
        self._demo.new_game(setup, origin="autoplay")
        strategy = STRATEGIES[self._rng.choice(["prudent", "greedy"])]()
        self._demo_sim = Simulation(self.game, setup, {expedition: strategy},
                                    seed=self._rng.randrange(2**31))
        _lay_issued_sheets(self._demo_sim, self._demo.state)
        self._demo_over_ticks = 0

    def _demo_step(self) -> None:
        s = self._demo.state
        if s.step is Step.OVER:
            self._demo_over_ticks += 1
            if self._demo_over_ticks >= 8:
                self._new_demo()
            return
        try:
            self._demo.submit(self._demo_sim.next_action(s), origin="autoplay")
        except CompanionError as exc:  # never a stuck demo: start another
            log.warning("kiosk: demo move refused (%s); a new demo game", exc)
            self._new_demo()

    # -- the clock -----------------------------------------------------------------------------

    def tick(self, now: float | None = None) -> None:
        """Let time pass: the timeouts, the automatic steps and the demo. Called about 10 times a second."""
        st = self.settings
        with self._lock:
            now = self.clock() if now is None else now
            changed = False
            if self.mode in ("playing", "asking"):
                state = self.timer.poll(now)
                if state == "expired":
                    self._to_attract()
                    changed = True
                elif state == "asking" and self.mode == "playing":
                    self.mode = "asking"
                    changed = True
            elif self.mode == "over" and now - max(self._over_since, self.timer.last_press) >= st.game_over_s:
                self._to_attract()
                changed = True
            if self.mode in ("playing", "asking") and now - self._last_step >= self.settings.auto_step_s:
                before = self.table.version
                self._auto_step(now)
                changed = changed or self.table.version != before
            if self.mode == "attract" and now - self._last_step >= self.settings.attract_step_s:
                self._demo_step()
                self._last_step = now
                changed = True
            if self.mode == "asking" and not changed:
                # the countdown under "Still playing?": a new screen each whole second
                shown = (self.broadcast.payload or {}).get("seconds_left")
                changed = shown is None or math.ceil(self.timer.seconds_left(now)) != math.ceil(shown)
            if changed:
                self._publish(now)

    def _to_attract(self) -> None:
        self.mode = "attract"
        self._helper, self._checkpoint, self._choices_for = None, None, None
        self._message = ""
        if self.voice is not None:
            self.voice.reset()
        self._new_demo()

    def start(self, period_s: float = 0.1) -> None:
        def run():
            while not self._stop.wait(period_s):
                try:
                    self.tick()
                except Exception:
                    log.exception("kiosk: tick failed")

        self._thread = threading.Thread(target=run, name="kiosk", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.broadcast.close()
        if self._demo is not None:
            self._demo.store.close()

    # -- what the screen shows -----------------------------------------------------------------

    def _publish(self, now: float | None = None) -> dict:
        screen = self._screen(self.clock() if now is None else now)
        self._published += 1
        screen["version"] = self._published
        self.broadcast.publish(self._published, screen)
        return screen

    def screen(self) -> dict:
        with self._lock:
            return self.broadcast.payload

    def _screen(self, now: float) -> dict:
        st = self.settings
        demo = self.mode == "attract"
        table = self._demo if demo else self.table
        view = table.view()
        sim = self._demo_sim if demo else self._helper
        s = table.state
        out = {
            "boot": self.boot,
            "mode": self.mode,
            "demo": demo,
            "view": _slim(view),
            "layout": _layout(s, sim),
            "choices": [],
            "selected": None,
            "message": self._message,
            "highscores": self.service.store.highscores(self.game.id, st.highscores) if st.highscores else [],
            "timeouts": {"still_playing_s": st.still_playing_s, "reset_s": st.reset_s},
            "seconds_left": None,
            "rounds": st.rounds,
        }
        buttons = {"go": None, "next": None, "undo": None}
        if demo:
            out["headline"] = "Can you prove the Loch Ness Monster exists? Press GO to play!"
            buttons["go"] = "Play"
        elif self.mode == "over" or (s is not None and s.step is Step.OVER):
            o = view["outcome"] or {}
            points = (o.get("points") or {}).get(st.expedition, 0)
            out["headline"] = f"The hunt is over: {points} points in {o.get('rounds', s.round)} rounds!"
            buttons["go"] = "Play again"
        elif self._throw_due(s):
            token = next(a for a in view["legal"] if a["type"] == "throw")
            if s.step is Step.LOGISTICS_THROW:
                out["headline"] = f"Throw the die for your LOGISTICS card ({s.pending_card})."
            elif token.get("token") == st.expedition:
                out["headline"] = "Throw the die to move your expedition leader."
            else:
                out["headline"] = f"Throw the die for the {token['token'].upper()} token: it helps place the monster."
            buttons["go"] = "Throw"
        elif s.step is Step.PURCHASE:
            e = s.expedition(st.expedition)
            out["headline"] = f"Buy equipment? You have {_money(e.cash)}."
            out["choices"] = [c["label"] for c in self._purchase_choices()]
            out["selected"] = self._selected
            buttons["go"] = "Choose"
            if len(out["choices"]) > 1:
                buttons["next"] = "Next choice"
        else:
            out["headline"] = view["prompt"]
            buttons["go"] = "Go on"
        if not demo and self._checkpoint is not None:
            buttons["undo"] = "Take back"
        if self.mode == "asking":
            out["seconds_left"] = round(self.timer.seconds_left(now), 1)
            out["headline"] = "Still playing? Press any button."
            buttons = {b: "I'm here" for b in BUTTONS}
        out["buttons"] = buttons
        return out


def _lay_issued_sheets(sim, s) -> None:
    """Lay the sheets issued at setup (the eye witnesses) at once, so the map shows them from the
    start; the simulator would lay them only when the first monster appears."""
    for name in s.seating.expeditions:
        strategy = sim.strategies[name]
        for p in s.expedition(name).pieces:
            if p.id not in sim.layout:
                sim.layout[p.id] = (frozenset({p.hex}) if p.equipment == "cage" and p.hex
                                    else strategy.place(sim.game, s, name, p.equipment, sim.layout, sim.rng)[1])


def _slim(view: dict) -> dict:
    """The parts of the table view the kiosk draws."""
    keep = ("started", "round", "stage", "step", "prompt", "turn", "leaders", "monster", "last_throw", "report",
            "outcome", "game_id", "version")
    out = {k: view.get(k) for k in keep}
    fields_ = ("name", "cash", "points", "running_cost", "pieces", "cards", "missing_turns", "loans")
    out["expeditions"] = [{k: e[k] for k in fields_}
                          for e in view.get("expeditions") or []]
    return out


def _layout(s, sim) -> list[dict]:
    """Where the visitor's transparencies lie (the kiosk's strategy placed them)."""
    if s is None or sim is None:
        return []
    out = []
    for name in s.seating.expeditions:
        for p in s.expedition(name).pieces:
            hexes = sim.layout.get(p.id) or (frozenset({p.hex}) if p.hex else frozenset())
            out.append({"piece": p.id, "expedition": name, "equipment": p.equipment, "hexes": sorted(hexes)})
    return out


__all__ = ["BUTTONS", "IdleTimer", "KioskController"]
