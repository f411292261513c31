"""The games the companion can run, each a pure rules module behind one small protocol.

A game object (see ``nessie_hunt.rules.NessieHunt``) offers:

    id, name, rulebook            "nessie-hunt", "Nessie Hunt", the seed file it follows
    box                           its box profile (name, digest), or None for a game without a board
    apply(state, action)          the next state, or IllegalAction naming the rule; state None + a setup
                                  action gives the first state
    legal_actions(state)          what may be done now, as dicts the dashboard draws buttons from
    prompt(state)                 what the table is told to do now, in the rulebook's words
    view(state)                   a JSON-ready picture of the state
    parse_action(json)            an action from its JSON form, or MalformedAction
    action_to_json(action)        the other way round
    is_setup(action)              whether the action starts a game

No I/O, no clock, no randomness inside. ``companion.table.Table`` runs any of them on the event log.

``GAME_MODULES`` lists the modules that hold games; each has ``make_game(box_path=None)``.
"""

from __future__ import annotations

import importlib

GAME_MODULES = (
    "companion.games.nessie_hunt",
    "companion.games.loch_ness_obert",
    "companion.games.loch_ness_wettering",
    "companion.games.loch_lomond",
    "companion.games.monster_ambush",
)


def available_modules():
    """The game modules that are present (a module still being written is simply not listed)."""
    found = []
    for name in GAME_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        if hasattr(module, "make_game"):
            found.append(module)
    return found
