"""Wires the pieces together: box profile, rules, event store, table, input devices, autoplay.

The web app and the command line both build a :class:`Service`; tests build one on a temporary
database and hand it to ``create_app``.
"""

from __future__ import annotations

import dataclasses
import logging

from companion.box_profiles import load_box
from companion.config import Config, ConfigError
from companion.errors import CompanionError
from companion.games import available_modules
from companion.games.nessie_hunt import NessieHunt
from companion.inputs import DiceSource, InputEvent, VirtualDie
from companion.inputs.routing import UNDO, device_action
from companion.simulator import Autoplayer, default_setup
from companion.store import EventStore
from companion.table import Table

log = logging.getLogger(__name__)


class Service:
    def __init__(self, config: Config | None = None, start_game: bool = True):
        self.config = config or Config()
        from companion.voice import Voice

        self.voice = Voice.from_config(self.config.voice_section())  # silent unless [voice] enabled
        self.box = load_box(self.config.box or None)
        self.game = NessieHunt(self.box)
        self.store = EventStore(self.config.database)
        try:
            self.table = Table(self.game, self.store, on_change=self._changed)  # replays the log
            # The other Loch-monster games run beside Nessie Hunt, each on its own table in the same log.
            self.tables: dict[str, Table] = {self.game.id: self.table}
            for module in available_modules():
                if module.__name__.endswith(".nessie_hunt"):
                    continue
                other = module.make_game()
                self.tables[other.id] = Table(other, self.store, on_change=self._other_changed)
        except BaseException:
            # a log that does not replay: the file is closed before the caller may move it aside
            # (an open connection would later checkpoint into, or delete, WAL files by name)
            self.store.close()
            raise
        self.input_game = self.config.input_game
        if self.input_game not in self.tables:
            raise ConfigError(f"[inputs] game {self.input_game!r} is not a game here; games: {', '.join(self.tables)}")
        seed = None if self.config.seed == -1 else self.config.seed
        self.die = VirtualDie(seed)
        self.sources: list[DiceSource] = [self.die] + self._boards()
        for source in self.sources:
            source.start(self.handle_input)
        from companion.inputs.twin_control import start_for

        self.twin_control = start_for(self.config.database, self.sources)  # `nessie-companion press` (twins only)
        from companion.board_camera import BoardCamera

        from companion.live_memory import memory_path

        self.board_camera = (BoardCamera(self.config.board_camera_source, self.box, memory_path(self.config.database))
                             if self.config.board_camera_source else None)
        if self.board_camera is not None:
            # live mode: follow each bought sheet onto the board (docs/board-vision-live.md)
            from companion.board_camera import calibrated_colours

            self.board_camera.start_live(self.table, calibrated_colours(self.box, self.config.database))
        self.autoplayer = None
        if self.config.autoplay:
            self.autoplayer = Autoplayer(self.table, self.die, self.config.interval_s, self.config.pause_after_human_s)
        if start_game and self.table.state is None:
            self.table.new_game(default_setup(self.config.players, self.config.expeditions, self.config.sponsor),
                                origin="resume")
        self._show_turn(self.tables[self.input_game].view())
        if self.autoplayer is not None:
            self.autoplayer.start()

    def _boards(self) -> list[DiceSource]:
        """The button boards the [inputs] config asks for; one that cannot start leaves the game going."""
        from companion.inputs.gpio_board import GPIOBoardError
        from companion.inputs.serial_board import SerialBoard
        from companion.inputs.simulated_gpio import gpio_board_from_config

        inputs = dataclasses.asdict(self.config)
        boards = []
        try:
            gpio = gpio_board_from_config(inputs)  # the real board, or its twin for "simulated"
        except GPIOBoardError as exc:
            log.error("GPIO board not started: %s", exc)
            gpio = None
        serial = SerialBoard.from_config(inputs)
        boards += [b for b in (gpio, serial) if b is not None]
        camera = self._camera_dice()
        if camera is not None:
            boards.append(camera)
        return boards

    def _camera_dice(self):
        """The dice camera the [camera] config asks for (its health shows a camera that fails)."""
        c = self.config
        if not c.camera_enabled:
            return None
        from companion.inputs.camera_dice import CameraDice
        from companion.inputs.camera_source import open_camera

        try:
            camera = open_camera(c.camera_source, (c.camera_width, c.camera_height), seed=c.seed)
            return CameraDice(camera, tray=tuple(c.camera_tray) if c.camera_tray else None,
                              expected_dice=c.camera_expected_dice, rest_frames=c.camera_rest_frames, fps=c.camera_fps)
        except (OSError, ValueError, ImportError) as exc:
            log.error("dice camera not started: %s", exc)
            return None

    def _show_turn(self, view: dict) -> None:
        """The turn LEDs show the expedition whose turn it is in the game the boards play (in the
        other games the turn is a colour or a name with no LED: all out)."""
        for source in self.sources:
            show = getattr(source, "show_turn", None)
            if show is not None:
                show(view.get("turn"))

    def route_inputs(self, game_id: str) -> None:
        """Send the boards' and dice camera's events to ``game_id``'s table from now on."""
        if game_id not in self.tables:
            raise ConfigError(f"no game {game_id!r}; games: {', '.join(self.tables)}")
        self.input_game = game_id
        self._show_turn(self.tables[game_id].view())

    def _other_changed(self, view: dict, origin: str) -> None:
        if getattr(self, "input_game", None) == view.get("game") and hasattr(self, "sources"):
            self._show_turn(view)

    def _changed(self, view: dict, origin: str) -> None:
        self.voice.on_view(view, origin)  # never raises, never waits
        if hasattr(self, "sources") and self.input_game == self.game.id:
            self._show_turn(view)  # the turn LEDs on the button boards
        if getattr(self, "autoplayer", None) is not None:
            self.autoplayer.noticed(origin)
        outcome = view.get("outcome")
        if outcome and outcome.get("winner") and view["seating"]["players"] == 1:
            # Solitaire: "the number of rounds needed to prove the monster's existence" is the score.
            self.store.record_highscore(view["game_id"], view["game"], outcome["winner"], outcome["rounds"],
                                        outcome["points"][outcome["winner"]])

    def handle_input(self, event: InputEvent) -> dict | None:
        """Feed a device's event to the table of the game the boards play (``[inputs] game``),
        exactly as the on-screen buttons would; one the game refuses shows on the device's health."""
        table = self.tables[self.input_game]
        try:
            action = device_action(table.game, lambda: table.view()["legal"], event, self._source_kind(event.source))
            if action is UNDO:
                return table.undo(origin=event.source)
            if action is None:
                return None
            return table.submit(action, origin=event.source)
        except CompanionError as exc:
            for source in self.sources:
                if source.name == event.source or source.kind == event.source:
                    source.refused(str(exc))
            log.info("input %s refused: %s", event, exc)
            return None

    def _source_kind(self, name: str) -> str:
        """The log's word for where a throw came from (a device's name is for the devices page)."""
        from companion.games.nessie_hunt.actions import SOURCES

        if name in SOURCES:
            return name
        kind = next((s.kind for s in self.sources if s.name == name), name)
        for word in ("serial", "gpio", "camera", "virtual"):
            if word in kind or word in name:
                return "virtual-die" if word == "virtual" else word
        return "screen"

    def health(self) -> dict:
        devices = {s.name: {"kind": s.kind, **s.health.as_dict()} for s in self.sources}
        voice = self.voice.health()
        devices["voice"] = {"kind": "voice", "connected": voice["enabled"] and voice["available"],
                            "last_event": f"{voice['spoken']} said" if voice["spoken"] else None, "last_event_at": None,
                            "last_error": voice["last_error"] or (voice["status"] if voice["enabled"] else None),
                            "details": voice}
        return devices

    def close(self) -> None:
        if self.autoplayer is not None:
            self.autoplayer.stop()
        if self.twin_control is not None:
            self.twin_control.close()
        for source in self.sources:
            source.close()
        for table in self.tables.values():
            table.broadcast.close()
        if self.board_camera is not None:
            self.board_camera.close()
        self.voice.close()
        self.store.close()


def run_server(service: Service, host: str, port: int, threads: int = 48) -> None:
    """Serve the dashboard with waitress (a production WSGI server) until Ctrl+C or SIGTERM."""
    import waitress

    from companion.serving import serve_until_stopped
    from companion.watchdog import Watchdog
    from companion.web import create_app

    app = create_app(service)
    server = waitress.create_server(app, host=host, port=port, threads=threads, channel_timeout=120,
                                    ident="nessie-companion")
    print(f"Nessie Hunt Companion: dashboard on http://{host}:{port}/  (Ctrl+C stops)", flush=True)
    # Under systemd (Type=notify): READY=1, then WATCHDOG=1 only while the table answers; a no-op elsewhere.
    watchdog = Watchdog.for_service(service).start()

    def close() -> None:
        watchdog.stop()
        service.close()

    serve_until_stopped(server, close)
