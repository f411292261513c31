"""Who may change the game: CSRF checks on every change, and PINs in LAN mode.

    init_security(app)      # in create_app, after the blueprints

Configured from ``app.config`` (falling back to the service's :class:`companion.config.Config`
and then to the environment for the PINs):

``LAN_MODE``
    False (the default): the companion answers this machine only. True: it answers the LAN, and
    every change needs a session that entered a PIN; setup and admin need the admin PIN.
``TABLE_PIN``, ``ADMIN_PIN``
    The PINs (env ``NESSIE_TABLE_PIN``, ``NESSIE_ADMIN_PIN``). LAN mode refuses to start without both.
``SECRET_KEY``
    Signs the session cookie. When not configured, LAN mode makes a random one and keeps it in the
    file ``secret_key`` beside the database (or ``SECRET_KEY_FILE``), so logins survive a restart.
``LOGIN_HOURS``
    How long a PIN entry lasts (12).

Rules, checked before every view (reads, GET and HEAD, are never refused here):

* CSRF, in every mode: a change must be JSON (``Content-Type: application/json``), which a
  cross-site HTML form cannot send and a cross-site script can only send after a CORS preflight
  that this app never grants; and its ``Origin`` (or, without one, its ``Referer``) must name this
  host. The one exception: a request with no body, no Content-Type, no Origin and no Referer
  (curl, a script: browsers always send an Origin with a POST). Without LAN mode a change must
  also be addressed to a loopback name (``localhost``, ``127.0.0.1``, ``[::1]``), which stops
  DNS-rebinding pages.
* LAN mode: a change without a PIN session is 401; a ``new-game`` action, ``/api/import`` and
  any view marked :func:`admin_only` need the admin PIN (403 with the table PIN).
* ``POST /api/login {"pin": ...}``: five wrong PINs from one address within five minutes, and that
  address gets 429 (with Retry-After) until the oldest falls out of the window.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from collections import deque
from datetime import timedelta
from hashlib import sha256
from pathlib import Path
from urllib.parse import urlsplit

from flask import Blueprint, current_app, jsonify, render_template, request, session

from companion.config import ConfigError, default_data_dir

CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_NAMES = ("localhost", "::1")
#: Views that need the admin PIN in LAN mode, besides those marked with :func:`admin_only`.
ADMIN_ENDPOINTS = frozenset({"api.import_game", "api.import_game_nessie"})
PIN_ENDPOINTS = frozenset({"security.login", "security.logout"})
#: Views taking a game action: a ``new-game`` action there needs the admin PIN.
ACTION_ENDPOINTS = frozenset({"api.actions", "api.actions_nessie"})
MIN_PIN, MAX_PIN = 4, 64

bp = Blueprint("security", __name__)


def admin_only(view):
    """Mark a view as setup/admin: in LAN mode only a session with the admin PIN may call it."""
    view.admin_only = True
    return view


# -- the bind address and the PINs, for the command line ------------------------------------------

def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    return host in LOOPBACK_NAMES or host.startswith("127.")


def check_pins(table_pin: str, admin_pin: str) -> None:
    """Refuse PINs LAN mode cannot work with, with a message that says what to do."""
    if not table_pin or not admin_pin:
        raise ConfigError("--lan needs a table PIN and an admin PIN: set [server] table_pin and admin_pin "
                          "in the config file, or NESSIE_TABLE_PIN and NESSIE_ADMIN_PIN in the environment")
    for name, pin in (("table", table_pin), ("admin", admin_pin)):
        if not MIN_PIN <= len(pin) <= MAX_PIN:
            raise ConfigError(f"the {name} PIN must be {MIN_PIN} to {MAX_PIN} characters long")
    if hmac.compare_digest(table_pin, admin_pin):
        raise ConfigError("the table PIN and the admin PIN must differ (the admin PIN allows setup)")


def apply_lan(config, environ=os.environ):
    """Settle ``config`` (a :class:`companion.config.Config`) for serving, or raise ConfigError.

    With ``config.lan``: the PINs come from the environment if set there (else the config file), and
    the host becomes 0.0.0.0 unless a non-loopback address was asked for. Without it the host must be
    a loopback address: anything else would open an unprotected table to the network.
    """
    if config.lan:
        config.table_pin = environ.get("NESSIE_TABLE_PIN") or config.table_pin
        config.admin_pin = environ.get("NESSIE_ADMIN_PIN") or config.admin_pin
        check_pins(config.table_pin, config.admin_pin)
        if is_loopback(config.host):
            config.host = "0.0.0.0"
    elif not is_loopback(config.host):
        raise ConfigError(f"host {config.host} would open the dashboard to the network without PINs: "
                          "add --lan (or [server] lan = true) and set the PINs")
    return config


# -- PIN attempts ---------------------------------------------------------------------------------

class AttemptLimiter:
    """At most ``max_failures`` wrong PINs per client address within ``window_s`` seconds (thread-safe).

    A right PIN does not wipe the count: someone who knows the table PIN cannot use it to go on
    guessing the admin PIN.
    """

    def __init__(self, max_failures: int = 5, window_s: float = 300.0, clock=time.monotonic):
        self.max_failures, self.window_s, self.clock = max_failures, window_s, clock
        self._failures: dict[str, deque] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque:
        times = self._failures.get(key)
        if times is None:
            return deque()
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if not times:
            del self._failures[key]
        return times

    def retry_after(self, key: str) -> float | None:
        """Seconds until ``key`` may try again, or None if it may try now."""
        with self._lock:
            now = self.clock()
            times = self._recent(key, now)
            if len(times) < self.max_failures:
                return None
            return max(times[0] + self.window_s - now, 0.001)

    def failed(self, key: str) -> int:
        """Count a wrong PIN; return how many tries ``key`` has left in the window."""
        with self._lock:
            now = self.clock()
            if len(self._failures) > 10_000:  # a flood of addresses: forget the stale ones
                for k in list(self._failures):
                    self._recent(k, now)
            times = self._recent(key, now)
            times.append(now)
            self._failures[key] = times
            return max(self.max_failures - len(times), 0)


# -- the app --------------------------------------------------------------------------------------

def init_security(app) -> None:
    """Install the checks and the PIN routes on ``app`` (see the module docstring)."""
    service = app.extensions.get("companion")
    settings = getattr(service, "config", None)
    if "LAN_MODE" not in app.config:
        app.config["LAN_MODE"] = bool(getattr(settings, "lan", False))
    for key, field, env in (("TABLE_PIN", "table_pin", "NESSIE_TABLE_PIN"), ("ADMIN_PIN", "admin_pin", "NESSIE_ADMIN_PIN")):
        if not app.config.get(key):
            app.config[key] = getattr(settings, field, "") or os.environ.get(env, "")
    app.config.setdefault("LOGIN_HOURS", 12)
    app.config.update(SESSION_COOKIE_NAME="nessie_session", SESSION_COOKIE_HTTPONLY=True,
                      SESSION_COOKIE_SAMESITE="Strict",
                      # Secure would stop the cookie on plain HTTP, which is all a LAN Pi serves.
                      SESSION_COOKIE_SECURE=False,
                      PERMANENT_SESSION_LIFETIME=timedelta(hours=app.config["LOGIN_HOURS"]))
    if app.config["LAN_MODE"]:
        # The command line refuses to start without good PINs (apply_lan); an app built without them
        # fails closed: it serves reads, and refuses every change and every PIN.
        try:
            check_pins(app.config["TABLE_PIN"], app.config["ADMIN_PIN"])
        except ConfigError as exc:
            app.config["PIN_PROBLEM"] = str(exc)
        if not app.config.get("SECRET_KEY"):
            app.config["SECRET_KEY"] = _stored_secret(_secret_path(app, settings))
    app.extensions["pin_limiter"] = AttemptLimiter(app.config.get("PIN_MAX_FAILURES", 5),
                                                   app.config.get("PIN_WINDOW_S", 300.0))
    app.before_request(_check_request)
    app.register_blueprint(bp)


def _secret_path(app, settings) -> Path:
    if app.config.get("SECRET_KEY_FILE"):
        return Path(app.config["SECRET_KEY_FILE"])
    database = getattr(settings, "database", "")
    folder = Path(database).expanduser().parent if database and database != ":memory:" else default_data_dir()
    return folder / "secret_key"


def _stored_secret(path: Path) -> str:
    """The key kept in ``path``, made (random, readable by the owner only) on first use."""
    try:
        key = path.read_text(encoding="ascii").strip()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key + "\n")
    os.replace(tmp, path)
    return key


def _refuse(status: int, message: str, **extra):
    return jsonify(error=message, status=status, **extra), status


def _netloc(url: str) -> str:
    try:
        return urlsplit(url).netloc.lower()
    except ValueError:
        return ""


def _hostname(netloc: str) -> str:
    if netloc.startswith("["):
        return netloc[1:].split("]", 1)[0]
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def _pin_tag(role: str, pin: str) -> str:
    """Ties a session to the PIN it entered: changing a PIN logs out everyone who used the old one."""
    return hmac.new(current_app.secret_key.encode(), f"{role}:{pin}".encode(), sha256).hexdigest()[:32]


def current_role() -> str | None:
    """'admin', 'table' or None: the PIN this browser entered (LAN mode); 'admin' on this machine only."""
    if not current_app.config["LAN_MODE"]:
        return "admin"
    if current_app.config.get("PIN_PROBLEM"):
        return None
    role = session.get("role")
    pin = {"table": current_app.config["TABLE_PIN"], "admin": current_app.config["ADMIN_PIN"]}.get(role)
    if pin is None or not hmac.compare_digest(str(session.get("pin_tag", "")), _pin_tag(role, pin)):
        return None
    return role


def _needs_admin() -> bool:
    view = current_app.view_functions.get(request.endpoint)
    if request.endpoint in ADMIN_ENDPOINTS or getattr(view, "admin_only", False):
        return True
    if request.endpoint not in ACTION_ENDPOINTS:
        return False
    body = request.get_json(silent=True) if request.mimetype == "application/json" else None
    return isinstance(body, dict) and body.get("type") == "new-game"


def _check_request():
    if request.method not in CHANGES or request.routing_exception is not None:
        return None  # reads are open; unknown paths and methods get Flask's 404/405
    origin = request.headers.get("Origin")
    referer = request.headers.get("Referer")
    source = origin if origin is not None else referer
    host = request.host.lower()
    if source is not None and _netloc(source) != host:
        return _refuse(403, f"cross-site request refused: it comes from {source!r}, not from this companion ({host})")
    if request.mimetype != "application/json":
        bodyless_script = (not request.content_length and "Content-Type" not in request.headers
                           and "Transfer-Encoding" not in request.headers and source is None)
        if not bodyless_script:
            return _refuse(415, "send JSON (Content-Type: application/json); the companion refuses form posts "
                                "as a guard against cross-site requests")
    lan = current_app.config["LAN_MODE"]
    if not lan and not is_loopback(_hostname(host)):
        return _refuse(403, f"this companion answers changes addressed to localhost only, not to {host!r} "
                            "(start it with --lan to play from other devices)")
    if not lan or request.endpoint in PIN_ENDPOINTS:
        return None
    if current_app.config.get("PIN_PROBLEM"):
        return _refuse(401, f"changes are refused: {current_app.config['PIN_PROBLEM']}")
    role = current_role()
    if role is None:
        return _refuse(401, "enter the table PIN to change the game", login="/login")
    if role != "admin" and _needs_admin():
        return _refuse(403, "setting up a game or importing one needs the admin PIN", login="/login")
    return None


# -- PIN entry ------------------------------------------------------------------------------------

@bp.get("/login")
def login_page():
    return render_template("login.html", lan=current_app.config["LAN_MODE"], role=current_role())


@bp.get("/api/session")
def whoami():
    """What this browser may do: {"lan": bool, "role": "admin"|"table"|null}."""
    return jsonify(lan=current_app.config["LAN_MODE"], role=current_role())


@bp.post("/api/login")
def login():
    if not current_app.config["LAN_MODE"]:
        return _refuse(409, "no PIN is needed: this companion only answers this machine")
    if current_app.config.get("PIN_PROBLEM"):
        return _refuse(409, f"no PIN can be entered: {current_app.config['PIN_PROBLEM']}")
    limiter: AttemptLimiter = current_app.extensions["pin_limiter"]
    address = request.remote_addr or "?"
    wait = limiter.retry_after(address)
    if wait is not None:
        seconds = int(wait) + 1
        response, status = _refuse(429, f"too many wrong PINs: try again in {seconds} s", retry_after=seconds)
        response.headers["Retry-After"] = str(seconds)
        return response, status
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or set(body) != {"pin"}:
        return _refuse(400, 'send {"pin": "..."}')
    pin = body["pin"]
    if not isinstance(pin, str) or not 0 < len(pin) <= MAX_PIN:
        return _refuse(400, f"the PIN must be text of 1 to {MAX_PIN} characters")
    is_admin = hmac.compare_digest(pin.encode(), current_app.config["ADMIN_PIN"].encode())
    is_table = hmac.compare_digest(pin.encode(), current_app.config["TABLE_PIN"].encode())
    if not (is_admin or is_table):
        left = limiter.failed(address)
        return _refuse(401, f"wrong PIN ({left} tries left)", tries_left=left)
    role = "admin" if is_admin else "table"
    session.clear()
    session.permanent = True
    session.update(role=role, pin_tag=_pin_tag(role, current_app.config[f"{role.upper()}_PIN"]))
    return jsonify(lan=True, role=role)


@bp.post("/api/logout")
def logout():
    if current_app.config["LAN_MODE"]:
        session.clear()
    return jsonify(lan=current_app.config["LAN_MODE"], role=current_role())
