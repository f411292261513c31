"""Actions as data: the JSON codec every action of the other Loch-monster games goes through. Pure.

Each action class is a frozen dataclass with a ``type`` tag and a ``check(need)`` method that
validates (and normalises lists to tuples) its fields. ``action_from_json`` refuses anything
malformed with :class:`MalformedAction` naming the field; whether a well-formed action is legal
*now* is the rules' business.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from companion.errors import MalformedAction

#: Where a value came from (shown beside it on the dashboard).
SOURCES = ("screen", "keyboard", "virtual-die", "autoplay", "camera", "gpio", "serial", "import", "script")


def to_jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def encode(action) -> dict[str, Any]:
    out: dict[str, Any] = {"type": action.type}
    for f in fields(action):
        out[f.name] = to_jsonable(getattr(action, f.name))
    return out


def decode(data: Any, types: dict[str, type]):
    if not isinstance(data, dict):
        raise MalformedAction("an action is a JSON object with a 'type'")
    kind = data.get("type")
    cls = types.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedAction(f"unknown action type {kind!r}; one of {', '.join(types)}")
    names = {f.name for f in fields(cls)}
    extra = set(data) - names - {"type"}
    if extra:
        raise MalformedAction(f"{kind}: unknown field(s) {', '.join(sorted(extra))}")
    missing = [f.name for f in fields(cls)
               if f.name not in data and f.default is MISSING and f.default_factory is MISSING]
    if missing:
        raise MalformedAction(f"{kind}: missing field(s) {', '.join(missing)}")
    action = cls(**{k: v for k, v in data.items() if k != "type"})

    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise MalformedAction(f"{kind}: {msg}")

    action.check(need)
    return action


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_name(value: Any, longest: int = 32) -> bool:
    return isinstance(value, str) and 0 < len(value) <= longest and value.strip() == value


def as_tuple(action, name: str, need, item_ok, what: str, longest: int = 64) -> tuple:
    """Normalise a list field to a tuple, checking every item."""
    value = getattr(action, name)
    need(isinstance(value, (list, tuple)) and len(value) <= longest and all(item_ok(v) for v in value),
         f"{name} must be a list of {what}")
    value = tuple(value)
    object.__setattr__(action, name, value)
    return value


def set_field(action, name: str, value) -> None:
    object.__setattr__(action, name, value)
