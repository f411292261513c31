"""What the coverage tests share."""

from __future__ import annotations


def coverage_score(box, data: bytes, truth):
    """The photo ``data`` (JPEG bytes) adjudicated without sheet fitting, its coverage decisions
    scored against the render's ``truth`` (``evaluate.CoverageScore``)."""
    from companion.vision.adjudicate import adjudicate, decode
    from companion.vision.evaluate import score_coverage

    adj = adjudicate(decode(data), box, fit_sheets=False)
    return score_coverage(box, truth, adj.coverage.covered, adj.coverage.unknown)


def scored_with_and_without(box, data: bytes, truth, monkeypatch, module, flag: str):
    """``coverage_score`` as the code stands, then again with ``module.flag`` switched off: the
    pair (with, without) a rule's test compares."""
    with_flag = coverage_score(box, data, truth)
    monkeypatch.setattr(module, flag, False)
    return with_flag, coverage_score(box, data, truth)
