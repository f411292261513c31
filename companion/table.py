"""The table: the one writer. Takes an action, checks it with the rules, logs it, publishes the view.

Order matters: the rules judge first (an illegal action changes nothing), the store writes second
(the action is on disk before anyone is told), and only then is the new view published to every
connected page.

    >>> from companion.box_profiles import load_box
    >>> from companion.games.nessie_hunt import NessieHunt, NewGame, Throw
    >>> table = Table(NessieHunt(load_box()), EventStore())
    >>> _ = table.new_game(NewGame(1, ("british",), "british"))
    >>> table.submit(Throw(3))["last_throw"]["value"]
    3
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from companion.errors import GameImportError, IllegalAction, MalformedAction, NothingToUndo, StaleRequest
from companion.store import EventStore, StoreError, effective_actions

EXPORT_FORMAT = "nessie-companion-game/1"


class Broadcast:
    """The latest view, and a condition every connected page waits on for the next one.

    Pages never queue up old views: a slow page simply gets the newest view when it wakes, so
    memory stays flat however many actions happen while it is busy.
    """

    def __init__(self):
        self._cond = threading.Condition()
        self.version = 0
        self.payload: Any = None
        self.closed = False

    def publish(self, version: int, payload: Any) -> None:
        with self._cond:
            self.version, self.payload = version, payload
            self._cond.notify_all()

    def wait_newer(self, seen: int, timeout: float) -> tuple[int, Any] | None:
        """The newest (version, payload) once it is newer than ``seen``; None on timeout or close."""
        with self._cond:
            self._cond.wait_for(lambda: self.version != seen or self.closed, timeout)
            if self.version == seen or self.closed:
                return None
            return self.version, self.payload

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class Table:
    """Runs one game at a time for one rules module (see ``companion.games.Game``) on an :class:`EventStore`."""

    def __init__(self, game, store: EventStore, on_change: Callable[[dict, str], None] | None = None):
        self.game = game
        self.store = store
        self.broadcast = Broadcast()
        self.on_change = on_change  # told (view, origin) after every change, e.g. the autoplayer
        self._lock = threading.RLock()
        self._record = None
        self._actions: list = []  # actions in force, as objects
        self._states: list = []  # the state after each of them (undo by snapshot)
        self._version = 0  # log entries so far: changes on every action and undo
        self._published = 0  # views published, so pages can tell a new view from an old one
        self.notice: str | None = None  # why the latest stored game was not resumed, if it was not
        self.annotations: dict = {}  # what the table is shown beside the game (the last photo's coverage); not logged
        self.resume()

    # -- reading -------------------------------------------------------------------------------

    @property
    def state(self):
        return self._states[-1] if self._states else None

    def history(self) -> list[tuple[dict, object]]:
        """The actions in force with the state after each: (action as JSON, state). Newest last."""
        with self._lock:
            return [(self.game.action_to_json(a), st) for a, st in zip(self._actions, self._states)]

    @property
    def setup(self):
        """The action that started the current game, or None."""
        return self._actions[0] if self._actions else None

    @property
    def game_id(self) -> int | None:
        """The store's id of the game being played, or None before the first game."""
        return self._record.id if self._record else None

    @property
    def version(self) -> int:
        return self._version

    def view(self) -> dict:
        with self._lock:
            out = self.game.view(self.state)
            out.update(
                version=self._version,
                game_id=self._record.id if self._record else None,
                actions=len(self._actions),
                can_undo=len(self._actions) > 1,
            )
            out.update(self.annotations)
            return out

    # -- changing ------------------------------------------------------------------------------

    def resume(self) -> None:
        """Load the latest game of this kind from the store (after a restart or a pulled plug)."""
        with self._lock:
            record = self.store.latest_game(self.game.id)
            self.notice = None
            if record is not None and record.box_digest != self._box()[1]:
                # Played on another box profile: replaying it on this board would be wrong.
                self.notice = (f"game {record.id} was played on the box profile {record.box_name!r}; "
                               "start the companion with that profile to carry on with it")
                record = None
            if record is None:
                self._record, self._actions, self._states, self._version = None, [], [], 0
            else:
                entries = self.store.entries(record.id, to_continue=True)
                actions = [self.game.parse_action(a) for a in effective_actions(entries)]
                self._record, self._version = record, len(entries)
                self._actions, self._states = [], []
                state = None
                for i, a in enumerate(actions):
                    try:
                        state = self.game.apply(state, a)
                    except IllegalAction as exc:
                        raise StoreError(f"{self.store.path}: game {record.id}, action {i + 1} no longer "
                                         f"replays: {exc}") from None
                    self._actions.append(a)
                    self._states.append(state)
            self._publish("resume")

    def annotate(self, key: str, value) -> dict:
        """Show something beside the game on every page (not an action: nothing is logged)."""
        with self._lock:
            self.annotations[key] = value
            return self._publish("annotation")

    def new_game(self, setup, origin: str = "screen") -> dict:
        with self._lock:
            state = self.game.apply(None, setup)  # judge before writing
            self._record = self.store.create_game(self.game.id, *self._box(), [self.game.action_to_json(setup)])
            self._actions, self._states, self._version = [setup], [state], 1
            return self._publish(origin)

    def submit(self, action, expect_version: int | None = None, origin: str = "screen") -> dict:
        """Apply ``action``: refused with IllegalAction (nothing changes), or logged durably and published."""
        with self._lock:
            self._check_version(expect_version)
            # Every logged action must read back: check it as if it came from JSON (it will, on replay).
            action = self.game.parse_action(self.game.action_to_json(action))
            if self.game.is_setup(action):
                return self.new_game(action, origin)
            if self._record is None:
                raise IllegalAction("no game yet: set one up first")
            state = self.game.apply(self.state, action)
            self.store.append(self._record.id, "action", self.game.action_to_json(action))
            self._actions.append(action)
            self._states.append(state)
            self._version += 1
            return self._publish(origin)

    def undo(self, expect_version: int | None = None, origin: str = "screen") -> dict:
        with self._lock:
            self._check_version(expect_version)
            if len(self._actions) <= 1:
                raise NothingToUndo("nothing to undo: only the game's setup is in the log")
            self.store.append(self._record.id, "undo")
            self._actions.pop()
            self._states.pop()
            self._version += 1
            return self._publish(origin)

    def _box(self) -> tuple[str, str]:
        """The box profile a game is played on (name, digest); games without a board have none."""
        box = getattr(self.game, "box", None)
        return (box.name, box.digest) if box is not None else ("none", "none")

    def _check_version(self, expect: int | None) -> None:
        if expect is not None and expect != self._version:
            raise StaleRequest(f"the table has moved on (you saw version {expect}, it is now {self._version}); "
                               "look again and retry")

    def _publish(self, origin: str) -> dict:
        view = self.view()
        self._published += 1
        self.broadcast.publish(self._published, view)
        if self.on_change is not None:
            self.on_change(view, origin)
        return view

    # -- export and import ---------------------------------------------------------------------

    def export(self) -> dict:
        with self._lock:
            if self._record is None:
                raise IllegalAction("no game to export")
            return {
                "format": EXPORT_FORMAT,
                "game": self.game.id,
                "box": dict(zip(("name", "digest"), self._box())),
                "actions": [self.game.action_to_json(a) for a in self._actions],
            }

    def import_game(self, doc: Any, origin: str = "import") -> dict:
        """Start a new game from an export; refused whole (nothing changes) if any part is wrong."""
        if not isinstance(doc, dict):
            raise GameImportError("a game export is a JSON object")
        if doc.get("format") != EXPORT_FORMAT:
            raise GameImportError(f"unknown export format {doc.get('format')!r}; expected {EXPORT_FORMAT!r}")
        if doc.get("game") != self.game.id:
            raise GameImportError(f"this export is a game of {doc.get('game')!r}, not {self.game.id!r}")
        box = doc.get("box")
        if not isinstance(box, dict) or box.get("digest") != self.game.box.digest:
            name = box.get("name") if isinstance(box, dict) else None
            raise GameImportError(f"this game was played on another box profile ({name!r}); "
                               f"load that profile to import it (this table runs {self.game.box.name!r})")
        raw = doc.get("actions")
        if not isinstance(raw, list) or not raw:
            raise GameImportError("'actions' must be a non-empty list, starting with the game's setup")
        actions, states, state = [], [], None
        for i, a in enumerate(raw):
            try:
                action = self.game.parse_action(a)
                if i == 0 and not self.game.is_setup(action):
                    raise IllegalAction("the first action must be the game's setup (new-game)")
                state = self.game.apply(state, action)
            except (MalformedAction, IllegalAction) as exc:
                raise GameImportError(f"action {i + 1}: {exc}") from None
            actions.append(action)
            states.append(state)
        with self._lock:
            self._record = self.store.create_game(self.game.id, *self._box(),
                                                  [self.game.action_to_json(a) for a in actions])
            self._actions, self._states, self._version = actions, states, len(actions)
            return self._publish(origin)
