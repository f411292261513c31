"""Sub-commands of ``nessie-companion`` that live beside their room (dice, vision, devices, games).

Each module here has ``register(subparsers)`` adding its commands; ``cli.py`` imports every module
named in ``COMMAND_MODULES`` so a room can add a command without touching the core CLI.
"""

COMMAND_MODULES = (
    "companion.commands.dice",
    "companion.commands.devices",
    "companion.commands.vision",
    "companion.commands.games",
    "companion.commands.nessie",
    "companion.commands.play",
    "companion.commands.kiosk",
)
