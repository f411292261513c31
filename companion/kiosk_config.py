"""The kiosk's config file: the ``serve`` sections (companion/config.py) plus ``[kiosk]``, ``[voice]``
and ``[inputs]`` (docs/kiosk.md lists every key). Kept apart from the controller (companion/kiosk.py)
so a museum's config can be read and checked without starting a game.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from companion.config import Config, ConfigError, default_data_dir, read_toml

# "The player chooses from the AMERICAN, BRITISH or JAPANESE expeditions."
SOLITAIRE_EXPEDITIONS = ("american", "british", "japanese")
DIE_MODES = ("virtual", "real")


# -- settings ------------------------------------------------------------------------------------

@dataclass
class KioskSettings:
    """The ``[kiosk]`` section of a kiosk config file; every key optional."""

    database: str = field(default_factory=lambda: str(default_data_dir() / "kiosk.sqlite"))  # never the table's
    expedition: str = "american"  # the visitor's expedition (american, british or japanese)
    variant: str = "basic"  # basic, introductory or junior
    rounds: int = 6  # a shortened game of this many rounds (0: play to the target)
    target: int = 0  # 0: the variant's (600 in a shortened game)
    strategy: str = "prudent"  # the purchase the kiosk suggests first (companion/sim/strategies.py)
    die: str = "virtual"  # "virtual": GO rolls the companion's die; "real": a source's thrown value counts
    still_playing_s: float = 45.0  # no press for this long: "Still playing?"
    reset_s: float = 15.0  # ... and this much longer: back to the attract loop
    auto_step_s: float = 1.5  # pause between the steps the kiosk plays for the visitor
    attract_step_s: float = 1.0  # pause between the demo's moves
    game_over_s: float = 30.0  # the result stays this long after the last press
    highscores: int = 5  # rows of the high-score table shown

    def validate(self) -> "KioskSettings":
        from companion.games.nessie_hunt import VARIANTS
        from companion.sim.strategies import STRATEGIES

        if self.expedition not in SOLITAIRE_EXPEDITIONS:
            raise ConfigError(f"[kiosk] expedition must be one of {', '.join(SOLITAIRE_EXPEDITIONS)}, "
                              f"got {self.expedition!r}")
        if self.variant not in VARIANTS:
            raise ConfigError(f"[kiosk] variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}")
        if self.strategy not in STRATEGIES:
            raise ConfigError(f"[kiosk] strategy must be one of {', '.join(STRATEGIES)}, got {self.strategy!r}")
        if self.die not in DIE_MODES:
            raise ConfigError(f"[kiosk] die must be virtual or real, got {self.die!r}")
        if self.rounds < 0 or self.target < 0 or self.highscores < 0:
            raise ConfigError("[kiosk] rounds, target and highscores must not be negative")
        for name in ("still_playing_s", "reset_s", "game_over_s"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"[kiosk] {name} must be more than 0 seconds")
        for name in ("auto_step_s", "attract_step_s"):
            if getattr(self, name) < 0:
                raise ConfigError(f"[kiosk] {name} must not be negative")
        return self


@dataclass
class KioskConfig:
    config: Config  # [server], [game] (its database is not used), [simulation]
    kiosk: KioskSettings
    voice: dict  # the [voice] section as written (companion/voice.py)
    inputs: dict  # the [inputs] section as written (GPIOBoard.from_config)


_TYPES = {"str": str, "int": int, "bool": bool, "float": (int, float), "list": list, "dict": dict}


def _apply(target, table: dict, section: str, allowed, path: Path) -> None:
    types = {f.name: f.type for f in fields(target)}
    for key, value in table.items():
        if key not in allowed:
            raise ConfigError(f"{path}: [{section}] has no key {key!r}; keys: {', '.join(allowed)}")
        kind = types[key]
        if isinstance(value, bool) and kind != "bool" or not isinstance(value, _TYPES[kind]):
            raise ConfigError(f"{path}: [{section}] {key} must be {kind}, got {value!r}")
        setattr(target, key, float(value) if kind == "float" else value)


def load_kiosk_config(path: str | Path | None) -> KioskConfig:
    """Read a kiosk config file: the ``serve`` sections (companion/config.py) plus ``[kiosk]``,
    ``[voice]`` and ``[inputs]``. No file: every default. The kiosk always plays solitaire, never
    autoplays its visitor table, and keeps its games in ``[kiosk] database``."""
    config, kiosk, voice, inputs = Config(), KioskSettings(), {}, {}
    if path is not None:
        path = Path(path)
        data = read_toml(path)
        known = {**Config.SECTIONS, "kiosk": (), "voice": (), "inputs": ()}
        for section, table in data.items():
            if section not in known or not isinstance(table, dict):
                raise ConfigError(f"{path}: unknown section [{section}]; sections are {', '.join(known)}")
            if section == "kiosk":
                _apply(kiosk, table, section, [f.name for f in fields(KioskSettings)], path)
            elif section == "voice":
                voice = dict(table)
            elif section == "inputs":
                inputs = dict(table)
            else:
                _apply(config, table, section, Config.SECTIONS[section], path)
        if kiosk.database != ":memory:":
            db = Path(os.path.expanduser(kiosk.database))
            kiosk.database = str(db if db.is_absolute() else (path.parent / db).resolve())
        if config.box and not Path(config.box).is_absolute():
            config.box = str((path.parent / config.box).resolve())
    kiosk.validate()
    config.database = kiosk.database
    config.players, config.expeditions, config.autoplay = 1, [kiosk.expedition], False
    return KioskConfig(config, kiosk, voice, inputs)


__all__ = ["DIE_MODES", "KioskConfig", "KioskSettings", "SOLITAIRE_EXPEDITIONS", "load_kiosk_config"]
