"""Reading box profiles from disk (TOML or JSON); the validation itself is pure (``games.nessie_hunt.box``)."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path

from companion.errors import BoxProfileError
from companion.games.nessie_hunt.box import BoxProfile, parse_box

DEFAULT_BOX = "default_box.toml"


def default_box_text() -> str:
    return resources.files("companion.games.nessie_hunt").joinpath(DEFAULT_BOX).read_text(encoding="utf-8")


def load_box(path: str | Path | None = None) -> BoxProfile:
    """The Nessie Hunt box profile at ``path`` (``.toml`` or ``.json``), or the house default when None."""
    data, source = load_document("companion.games.nessie_hunt", DEFAULT_BOX, path)
    return parse_box(data, source)


def load_document(package: str, default: str, path: str | Path | None = None) -> tuple[object, str]:
    """Any game's box profile document, decoded: the file at ``path``, or the house default ``default``
    packaged in ``package``; with the name error messages use. Every game's profile is read here."""
    if path is None:
        source = f"<house default {default}>"
        return _decode(resources.files(package).joinpath(default).read_text(encoding="utf-8"), "toml", source), source
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BoxProfileError(source, "(file)", "no such file") from None
    except UnicodeDecodeError:
        raise BoxProfileError(source, "(file)", "not UTF-8 text") from None
    except OSError as exc:
        raise BoxProfileError(source, "(file)", exc.strerror or str(exc)) from None
    kind = "json" if path.suffix.lower() == ".json" else "toml"
    return _decode(text, kind, source), source


def _decode(text: str, kind: str, source: str) -> object:
    try:
        if kind == "json":
            return json.loads(text)
        return tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise BoxProfileError(source, "(file)", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BoxProfileError(source, "(file)", f"not valid TOML: {exc}") from None
