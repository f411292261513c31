"""Reading this game's box profile from disk (TOML or JSON). The only module here that does I/O;
the rules and the parser stay pure."""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path

from companion.errors import BoxProfileError


def load_document(package: str, default: str, path=None) -> tuple[object, str]:
    """The decoded document at ``path`` (or the packaged house default) and its name for error messages."""
    if path is None:
        source = f"<house default {default}>"
        text = resources.files(package).joinpath(default).read_text(encoding="utf-8")
        kind = "toml"
    else:
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
    try:
        return (json.loads(text) if kind == "json" else tomllib.loads(text)), source
    except json.JSONDecodeError as exc:
        raise BoxProfileError(source, "(file)", f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BoxProfileError(source, "(file)", f"not valid TOML: {exc}") from None
