"""The head every Loch-monster game's profile document starts with: a table, its schema, its name.

The four other games' ``parse_box`` functions share this check, so a wrong file gets the same
words from each of them.
"""

from __future__ import annotations

from typing import Any

from companion.errors import BoxProfileError


def document_name(data: Any, schema: str, source: str) -> str:
    """The profile's ``name``, once ``data`` is a table of ``schema``; else :class:`BoxProfileError`."""
    if not isinstance(data, dict):
        raise BoxProfileError(source, "(document)", "expected a table at the top level")
    if data.get("schema") != schema:
        raise BoxProfileError(source, "schema", f"unknown schema {data.get('schema')!r}; this companion reads {schema!r}")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise BoxProfileError(source, "name", "expected text")
    return name
