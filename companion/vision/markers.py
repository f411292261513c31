"""The printable marker sheet: the box profile's four ArUco markers at true scale, with a
placement guide (``nessie-companion markers --out FILE.svg`` or ``FILE.pdf``).

Both formats are written by hand (no extra dependency): every black module is a filled square in
millimetres, so the print is exact when printed at 100 % ("actual size", no "fit to page").  A 100 mm
ruler on the sheet lets the player check the scale before cutting the markers out.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

A4 = (210.0, 297.0)
PT_PER_MM = 72 / 25.4


@dataclass
class Item:
    kind: str  # "rect" (filled black), "frame" (thin outline), "text"
    x: float
    y: float
    w: float = 0.0
    h: float = 0.0
    text: str = ""
    size: float = 3.5  # text height, mm


def _modules(dictionary_name: str, marker_id: int) -> np.ndarray:
    aruco = cv2.aruco
    d = aruco.getPredefinedDictionary(getattr(aruco, dictionary_name))
    size = d.markerSize + 2
    return aruco.generateImageMarker(d, marker_id, size, borderBits=1) < 128  # True = black


def sheet_items(box) -> list[Item]:
    """Everything on the A4 sheet, in mm from its top-left corner."""
    items: list[Item] = []
    items.append(Item("text", 15, 18, text="Nessie Hunt Companion: board markers (print at 100 %, actual size)", size=4.5))
    items.append(Item("text", 15, 25, text=f"Box profile: {box.name}", size=3.2))
    items.append(Item("text", 15, 30, text=f"ArUco dictionary {box.markers_dictionary}. Cut along the thin grey frames.",
                      size=3.2))
    slots = [(25, 45), (115, 45), (25, 150), (115, 150)]
    for (sx, sy), m in zip(slots, box.markers):
        c = np.asarray(m.corners, float)
        side = float(np.linalg.norm(c[1] - c[0]))
        bits = _modules(box.markers_dictionary, m.id)
        n = bits.shape[0]
        cell = side / n
        quiet = cell
        items.append(Item("frame", sx - quiet, sy - quiet, side + 2 * quiet, side + 2 * quiet))
        for r in range(n):
            for col in range(n):
                if bits[r, col]:
                    items.append(Item("rect", sx + col * cell, sy + r * cell, cell, cell))
        cx, cy = c.mean(0)
        where = ("top" if cy < box.height / 2 else "bottom") + "-" + ("left" if cx < box.width / 2 else "right")
        items.append(Item("text", sx - quiet, sy + side + quiet + 5, text=f"Marker {m.id}: {where} corner", size=3.5))
        items.append(Item("text", sx - quiet, sy + side + quiet + 10,
                          text=f"top-left corner at x {c[0][0]:g} mm, y {c[0][1]:g} mm", size=3.0))
        items.append(Item("text", sx - quiet, sy + side + quiet + 14.5,
                          text=f"{side:g} mm square, this side up = board's top edge", size=3.0))
    # placement guide: the board in miniature
    gx, gy, gw = 25.0, 240.0, 90.0
    scale = gw / box.width
    items.append(Item("frame", gx, gy, box.width * scale, box.height * scale))
    for m in box.markers:
        c = np.asarray(m.corners, float)
        x0, y0 = c.min(0) * scale
        w, h = (c.max(0) - c.min(0)) * scale
        items.append(Item("rect", gx + x0, gy + y0, w, h))
        items.append(Item("text", gx + x0 + w + 1, gy + y0 + h, text=str(m.id), size=2.5))
    shore = np.asarray(box.loch.shore_outline, float) * scale
    lo, hi = shore.min(0), shore.max(0)
    items.append(Item("frame", gx + lo[0], gy + lo[1], hi[0] - lo[0], hi[1] - lo[1]))
    items.append(Item("text", gx, gy - 3, text="Placement guide (the board from above, loch in the middle)", size=3.0))
    items.append(Item("text", gx + gw + 6, gy + 8, text="Stick each marker flat, its", size=3.0))
    items.append(Item("text", gx + gw + 6, gy + 13, text="corner at the position given,", size=3.0))
    items.append(Item("text", gx + gw + 6, gy + 18, text="edges parallel to the board's.", size=3.0))
    items.append(Item("text", gx + gw + 6, gy + 26, text="Any two markers in view", size=3.0))
    items.append(Item("text", gx + gw + 6, gy + 31, text="are enough; four are best.", size=3.0))
    # 100 mm ruler
    rx, ry = 25.0, 228.0
    items.append(Item("rect", rx, ry, 100.0, 0.4))
    for t in range(0, 101, 10):
        items.append(Item("rect", rx + t - 0.2, ry - 3, 0.4, 3))
    items.append(Item("text", rx + 103, ry, text="100 mm: check with a ruler", size=3.0))
    return items


def to_svg(box) -> str:
    w, h = A4
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">',
           f'<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>']
    for it in sheet_items(box):
        if it.kind == "rect":
            out.append(f'<rect x="{it.x:.3f}" y="{it.y:.3f}" width="{it.w:.3f}" height="{it.h:.3f}" fill="black"/>')
        elif it.kind == "frame":
            out.append(f'<rect x="{it.x:.3f}" y="{it.y:.3f}" width="{it.w:.3f}" height="{it.h:.3f}" fill="none" '
                       f'stroke="#888" stroke-width="0.2"/>')
        else:
            text = it.text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            out.append(f'<text x="{it.x:.3f}" y="{it.y:.3f}" font-family="Helvetica, Arial, sans-serif" '
                       f'font-size="{it.size:.2f}">{text}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def to_pdf(box) -> bytes:
    """A one-page A4 PDF (PDF 1.4, Helvetica) drawn in points from the same items."""
    w, h = A4
    ops = ["1 1 1 rg 0 0 {:.3f} {:.3f} re f".format(w * PT_PER_MM, h * PT_PER_MM), "0 0 0 rg"]
    for it in sheet_items(box):
        x, y = it.x * PT_PER_MM, (h - it.y - it.h) * PT_PER_MM
        if it.kind == "rect":
            ops.append(f"{x:.3f} {y:.3f} {it.w * PT_PER_MM:.3f} {it.h * PT_PER_MM:.3f} re f")
        elif it.kind == "frame":
            ops.append(f"q 0.53 0.53 0.53 RG 0.567 w {x:.3f} {y:.3f} {it.w * PT_PER_MM:.3f} "
                       f"{it.h * PT_PER_MM:.3f} re S Q")
        else:
            text = it.text.encode("latin-1", "replace").decode("latin-1")
            text = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            size = it.size * PT_PER_MM * 1.4
            ops.append(f"BT /F1 {size:.2f} Tf {it.x * PT_PER_MM:.3f} {(h - it.y) * PT_PER_MM:.3f} Td ({text}) Tj ET")
    content = "\n".join(ops).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w * PT_PER_MM:.3f} {h * PT_PER_MM:.3f}] "
         f"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>").encode(),
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    pdf = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(pdf))
        pdf += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(pdf)
    pdf += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        pdf += f"{off:010d} 00000 n \n".encode()
    pdf += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(pdf)
