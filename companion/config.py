"""Explicit configuration: defaults, then a TOML file (``serve --config FILE``), then command-line flags.

Every key, with its default (a config file may give any subset)::

    [server]
    host = "127.0.0.1"      # 127.0.0.1 keeps the dashboard on this machine
    port = 5000
    threads = 48            # each open dashboard page holds one thread for its live updates
    lan = false             # true: answer the LAN (host 0.0.0.0), changes need a PIN (docs/security.md)
    table_pin = ""          # LAN mode: the PIN to play (env NESSIE_TABLE_PIN wins)
    admin_pin = ""          # LAN mode: the PIN for setup and admin (env NESSIE_ADMIN_PIN wins)

    [game]
    database = "~/.local/share/nessie-companion/companion.sqlite"
    box = ""                # a box profile file; empty: the house default
    players = 4             # the game set up when the database holds none (1-5)
    expeditions = []        # empty: the rulebook's default for that many players
    sponsor = ""            # empty: the rulebook's default

    [simulation]
    seed = 0                # the virtual die's seed; -1: a new seed every start
    autoplay = false        # a self-playing table
    interval_s = 1.5        # seconds between autoplayed actions
    pause_after_human_s = 20  # autoplay waits this long after a person acts

    [inputs]                # the button boards (docs/button-boards.md)
    gpio_board = false      # buttons 1-6, Undo, Next and turn LEDs on the Pi's pins
    gpio_buttons = {}       # name -> BCM pin; empty: the default map
    gpio_leds = {}
    gpio_press_ms = 3
    gpio_release_ms = 25
    gpio_pin_factory = "lgpio"  # "lgpio" on the Pi; "simulated": the board's twin (bouncing switches, no pins)
    serial_board = ""       # "": none; "auto": the Pico by its USB id; a device path;
                            # "simulated" (arcade-button twin) or "simulated-matrix" (key-matrix twin: 1-12, water)
    game = "nessie-hunt"    # the game the boards and the dice camera play: a game id (nessie-companion games)

    [camera]                # the dice camera over the dice tray (docs/dice-camera.md)
    enabled = false
    source = "auto"         # "auto", "picamera", "sim" (rendered throws), a device number, a path or URL
    width = 640
    height = 480
    tray = []               # [x, y, w, h] as fractions of the frame; empty: the whole frame
    expected_dice = 1
    rest_frames = 2
    fps = 10

    [board_camera]          # the overhead camera over the board: the calibration wizard's preview
    source = ""             # "": none; "sim" (the board drawn from the profile), "auto", "picamera", a number

    [voice]                 # reading prompts, cards and totals aloud (companion/voice.py)
    enabled = false
    voice = "en-gb"         # an espeak-ng voice
    speed = 150             # words per minute, 80-450
    volume = 100            # 0-200
    wav_dir = ""            # not empty: write WAV files there instead of speaking
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from companion.errors import CompanionError



def read_toml(path: Path) -> dict:
    """A config file's tables, or :class:`ConfigError` saying why not (missing, not TOML)."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None

class ConfigError(CompanionError, ValueError):
    pass


def default_data_dir() -> Path:
    return Path(os.environ.get("NESSIE_COMPANION_DATA", Path.home() / ".local" / "share" / "nessie-companion"))


@dataclass
class Config:
    host: str = "127.0.0.1"
    port: int = 5000
    threads: int = 48
    lan: bool = False
    table_pin: str = ""
    admin_pin: str = ""
    database: str = field(default_factory=lambda: str(default_data_dir() / "companion.sqlite"))
    box: str = ""
    players: int = 4
    expeditions: list = field(default_factory=list)
    sponsor: str = ""
    seed: int = 0
    autoplay: bool = False
    interval_s: float = 1.5
    pause_after_human_s: float = 20.0
    # [inputs]: the button boards (docs/button-boards.md)
    gpio_board: bool = False
    gpio_pin_factory: str = "lgpio"
    gpio_buttons: dict = field(default_factory=dict)
    gpio_leds: dict = field(default_factory=dict)
    gpio_press_ms: float = 3.0
    gpio_release_ms: float = 25.0
    serial_board: str = ""
    input_game: str = "nessie-hunt"
    # [camera]: the dice camera (docs/dice-camera.md)
    camera_enabled: bool = False
    camera_source: str = "auto"
    camera_width: int = 640
    camera_height: int = 480
    camera_tray: list = field(default_factory=list)
    camera_expected_dice: int = 1
    camera_rest_frames: int = 2
    camera_fps: float = 10.0
    # [board_camera]: the overhead camera over the board (the calibration wizard's preview)
    board_camera_source: str = ""
    # [voice]: reading aloud with espeak-ng (companion/voice.py)
    voice_enabled: bool = False
    voice_name: str = "en-gb"
    voice_speed: int = 150
    voice_volume: int = 100
    voice_wav_dir: str = ""

    SECTIONS = {"server": ("host", "port", "threads", "lan", "table_pin", "admin_pin"),
                "game": ("database", "box", "players", "expeditions", "sponsor"),
                "simulation": ("seed", "autoplay", "interval_s", "pause_after_human_s"),
                "inputs": ("gpio_board", "gpio_pin_factory", "gpio_buttons", "gpio_leds", "gpio_press_ms",
                           "gpio_release_ms", "serial_board", "game"),
                "voice": ("enabled", "voice", "speed", "volume", "wav_dir"),
                "camera": ("enabled", "source", "width", "height", "tray", "expected_dice", "rest_frames", "fps"),
                "board_camera": ("source",)}
    #: Keys whose attribute has another name (the [voice] keys are prefixed on the flat Config).
    ATTRIBUTES = {("voice", "enabled"): "voice_enabled", ("voice", "voice"): "voice_name",
                  ("voice", "speed"): "voice_speed", ("voice", "volume"): "voice_volume",
                  ("voice", "wav_dir"): "voice_wav_dir",
                  **{("camera", k): f"camera_{k}" for k in ("enabled", "source", "width", "height", "tray",
                                                             "expected_dice", "rest_frames", "fps")},
                  ("board_camera", "source"): "board_camera_source",
                  ("inputs", "game"): "input_game"}

    def voice_section(self) -> dict:
        return {key: getattr(self, attr) for (section, key), attr in self.ATTRIBUTES.items() if section == "voice"}

    @classmethod
    def from_file(cls, path: str | Path) -> "Config":
        path = Path(path)
        data = read_toml(path)
        config = cls()
        types = {f.name: f.type for f in fields(cls)}
        for section, table in data.items():
            if section not in cls.SECTIONS or not isinstance(table, dict):
                raise ConfigError(f"{path}: unknown section [{section}]; sections are {', '.join(cls.SECTIONS)}")
            for key, value in table.items():
                if key not in cls.SECTIONS[section]:
                    raise ConfigError(f"{path}: [{section}] has no key {key!r}; keys: {', '.join(cls.SECTIONS[section])}")
                attr = cls.ATTRIBUTES.get((section, key), key)
                want = {"str": str, "int": int, "bool": bool, "float": (int, float), "list": list, "dict": dict}[types[attr]]
                if isinstance(value, bool) and want is not bool or not isinstance(value, want):
                    raise ConfigError(f"{path}: [{section}] {key} must be {types[attr]}, got {value!r}")
                setattr(config, attr, float(value) if types[attr] == "float" else value)
        if config.database and not Path(config.database).is_absolute() and config.database != ":memory:":
            config.database = str((path.parent / os.path.expanduser(config.database)).resolve())
        if config.box and not Path(config.box).is_absolute():
            config.box = str((path.parent / config.box).resolve())
        return config
