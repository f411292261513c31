"""The printable marker sheet: true scale, decodable, a well-formed PDF."""

from __future__ import annotations

import re

import cv2
import numpy as np

from companion.vision.markers import A4, sheet_items, to_pdf, to_svg
from companion.vision.registration import detect_markers

PX_PER_MM = 8.0


def _raster(box) -> np.ndarray:
    """Draw the sheet's filled squares the way a printer would, at 8 px/mm."""
    w, h = int(A4[0] * PX_PER_MM), int(A4[1] * PX_PER_MM)
    img = np.full((h, w), 255, np.uint8)
    for it in sheet_items(box):
        if it.kind == "rect":
            x0, y0 = it.x * PX_PER_MM, it.y * PX_PER_MM
            pts = np.array([[x0, y0], [x0 + it.w * PX_PER_MM, y0], [x0 + it.w * PX_PER_MM, y0 + it.h * PX_PER_MM],
                            [x0, y0 + it.h * PX_PER_MM]]) - 0.5
            cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], 0, lineType=cv2.LINE_AA, shift=4)
    return img


def test_markers_print_at_true_scale_and_decode(box):
    found = detect_markers(_raster(box), box.markers_dictionary)
    assert sorted(found) == sorted(m.id for m in box.markers)
    for m in box.markers:
        want = float(np.linalg.norm(np.subtract(m.corners[1], m.corners[0])))
        side = np.linalg.norm(found[m.id][1] - found[m.id][0]) / PX_PER_MM
        assert abs(side - want) < 0.3, (m.id, side, want)


def test_placement_guide_names_every_marker_position(box):
    texts = " ".join(it.text for it in sheet_items(box) if it.kind == "text")
    for m in box.markers:
        x, y = m.corners[0]
        assert f"Marker {m.id}" in texts and f"x {x:g} mm, y {y:g} mm" in texts
    assert "100 mm" in texts and "actual size" in texts


def test_pdf_is_well_formed(box):
    pdf = to_pdf(box)
    assert pdf.startswith(b"%PDF-1.4")
    start = int(re.search(rb"startxref\n(\d+)\n%%EOF", pdf).group(1))
    assert pdf[start:start + 4] == b"xref"
    offsets = [int(o) for o in re.findall(rb"(\d{10}) 00000 n ", pdf)]
    assert len(offsets) == 5
    for i, off in enumerate(offsets, 1):
        assert pdf[off:].startswith(f"{i} 0 obj".encode())
    assert b"/MediaBox [0 0 595.276 841.890]" in pdf  # A4 in points


def test_svg_is_millimetres(box):
    svg = to_svg(box)
    assert 'viewBox="0 0 210.0 297.0"' in svg
    assert svg.count("<rect") > 4 * 10
