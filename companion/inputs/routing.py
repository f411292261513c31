"""What a device's event means in each game: the bridge from buttons and dice to the tables.

Pure (no I/O): :func:`device_action` takes the game, what is legal now and an :class:`InputEvent`
and returns the action to submit, :data:`UNDO`, or raises :class:`DeviceRefused` saying why the
event has no place in this game now. The rules still judge every action it returns.

* A throw is the game's die action (Nessie Hunt's ``throw``, Loch Ness (Obert)'s d12 ``roll``)
  when the die has that face: Nessie Hunt's six-sided die refuses 7-12 and the water symbol here,
  the Obert box profile's die faces are checked by its rules. The dice camera reads six-sided
  dice, so only a d6 game takes its throws.
* Undo is the table's undo in every game.
* Next is the one action that "goes on" without choices (a settled card, the end of a turn), in
  the order listed per game; when none is legal now it is refused.

Games with no die of their own (card games, the skirmish whose ambush needs a hex and a soldier
count with its three dice) refuse throws with the reason, so a press is shown, never lost silently.

    >>> from companion.games.loch_ness_obert import make_game
    >>> obert = make_game()
    >>> device_action(obert, lambda: [{"type": "roll"}], InputEvent("throw", "water", "pico"), "serial")
    Roll(value='water', source='serial')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from companion.errors import CompanionError

from .base import D6_FACES, InputEvent

UNDO = "undo"  # device_action's answer for Undo: the table's own undo, not an action


class DeviceRefused(CompanionError, ValueError):
    """A device's event that has no meaning in this game now; the text says why and what to do."""


@dataclass(frozen=True)
class GameRoute:
    throw: str | None  # the action type a throw becomes, or None: the game takes no throws
    faces: tuple | None = None  # the faces a throw may show (None: the game's rules check them)
    die: str = ""  # the die's name, for messages
    no_throw: str = ""  # why a throw is refused, when ``throw`` is None
    next: tuple[str, ...] = ()  # the actions Next may mean, first legal one wins
    camera: bool = False  # the dice camera reads six-sided dice: only a d6 game takes its throws


ROUTES = {
    "nessie-hunt": GameRoute("throw", D6_FACES, "a six-sided die",
                             next=("logistics-dealt", "end-turn", "advance"), camera=True),
    "loch-ness-obert": GameRoute("roll", None, "the twelve-sided die"),
    "loch-ness-wettering": GameRoute(None, no_throw="it has no die: the movement cards are entered on the screen",
                                     next=("pass",)),
    "loch-lomond": GameRoute(None, no_throw="it is a card game: the clans are scored on the screen"),
    "monster-ambush": GameRoute(None, no_throw="an ambush needs its hex and soldiers with its three dice: "
                                               "enter it on the screen",
                                next=("end-actions", "end-turn", "humans-done")),
}


def takes_throws(game_id: str) -> bool:
    route = ROUTES.get(game_id)
    return route is not None and route.throw is not None


def device_action(game, legal: Callable[[], list[dict]], event: InputEvent, source_kind: str):
    """The action ``event`` stands for in ``game``, or :data:`UNDO`.

    ``legal()`` gives the legal actions now (the view's ``legal`` list); it is called only for
    Next, so a throw costs no view. ``source_kind`` is the log's word for the device ("gpio",
    "serial", "camera", ...).
    """
    route = ROUTES.get(game.id)
    if event.kind == "undo":
        return UNDO
    if route is None:
        raise DeviceRefused(f"{game.name} takes no input from devices; use the screen")
    if event.kind == "throw":
        if route.throw is None:
            raise DeviceRefused(f"{game.name} takes no throws from a device: {route.no_throw}")
        if source_kind == "camera" and not route.camera:
            raise DeviceRefused(f"{game.name}: the dice camera reads six-sided dice, not {route.die}; "
                                "use the button board or the screen")
        if route.faces is not None and event.value not in route.faces:
            shown = "the water symbol" if event.value == "water" else f"a {event.value}"
            raise DeviceRefused(f"{game.name} is played with {route.die}: {shown} is not on it")
        return game.parse_action({"type": route.throw, "value": event.value, "source": source_kind})
    kinds = {entry["type"] for entry in legal()}
    for kind in route.next:
        if kind in kinds:
            return game.parse_action({"type": kind})
    return None  # Next with nothing to go on: nothing happens, as with the on-screen button
