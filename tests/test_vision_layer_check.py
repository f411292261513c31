"""Two fits of one expedition whose overlap reads plainly one layer cannot both be there
(sheetfit.LAYER_CHECK): a transparency is a coloured filter, so where two of one expedition's
sheets overlap the light passes two filters and the overlap reads darker than one sheet."""

from __future__ import annotations


def test_a_merged_blob_split_against_its_layers_is_not_named(box, monkeypatch):
    """Development seed 556 (broadened) as rendered: the Japanese eye witness #4 and surface camera
    #0 merge in one blob of colour; the camera is fitted right, the eye witness's part beside it as a
    biological unit whose overlap with the camera reads one layer over 0.39 of it: a wrong type.
    With the check the biological unit is unidentified instead; every sheet named right stays right,
    coverage's decisions unchanged.  Fails without the rule (switch off: one wrong type)."""
    from companion.vision import sheetfit
    from tests.coverage_helpers import assert_rule_unnames_one_wrong_type

    assert_rule_unnames_one_wrong_type(box, monkeypatch, 556, sheetfit, "LAYER_CHECK")
