"""Every other game's profile refuses a document with the wrong head, naming the key at fault."""

from __future__ import annotations

import importlib

import pytest

from companion.errors import BoxProfileError

GAMES = ("loch_lomond", "loch_ness_obert", "loch_ness_wettering", "monster_ambush")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("document, key, words", [
    (["not", "a", "table"], "(document)", "expected a table at the top level"),
    ({"schema": "nessie-hunt-box/1", "name": "x"}, "schema", "unknown schema"),
    ({"name": "x"}, "schema", "unknown schema"),
    ({"name": ""}, "name", "expected text"),
    ({}, "name", "expected text"),
])
def test_wrong_head_is_refused_with_the_key_at_fault(game, document, key, words):
    box = importlib.import_module(f"companion.games.{game}.box")
    if isinstance(document, dict) and key == "name":
        document = {**document, "schema": box.SCHEMA}
    with pytest.raises(BoxProfileError) as caught:
        box.parse_box(document, source="profile.toml")
    assert key in str(caught.value) and words in str(caught.value) and "profile.toml" in str(caught.value)
