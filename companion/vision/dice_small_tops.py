"""A light die under the least die's area, read at its top face in its blob's open part.

A light die (white, ivory, pastel, clear) on a light table shows its top face in the table's own
tone: the foreground holds only its shaded side faces and its shadow, a crescent or an L round the
top face. A small such die (under ~60 px in a 3000 px photo, 11-16 working pixels) makes a blob
under the least die's area, and the reader's small-blob look (``dice.SMALL_BLOBS_SIZED_BY_READ_DICE``)
reads it round its box's middle -- the middle of the side faces and shadow, 0.37-0.67 of a side off
the top face on the development scenes (docs/dice-camera.md, thirty-ninth round, h3), where the disc
holds a side face and a part of the top and reads nothing or a part. The top face lies in the part of
the blob's convex hull the blob leaves open (the side faces are round it on the camera's side), so the
die is read again there, at the read dice's size, and its value kept when it is read there, of the
dice's size and at that place. Where that reads no value but shows marks of a face (pips seen, off
layout), the die may be reported unreadable there (``SMALL_TOPS_UNREAD_REPORTED``, off: it never fired
on the development scenes read).
"""
from __future__ import annotations

import cv2
import numpy as np

#: a blob under the least die's area that the small-blob look read nothing in is read again at the
#: middle of its hull's open part (the top face the table's tone); False: the old reader exactly
SMALL_TOPS_IN_OPEN_PART = True
#: ... and where that reads no value but sees a face's marks, the die is reported unreadable there.
#: Off: on the development scenes read (thirty-ninth round, h3) it never fired -- every top face the
#: rule reached read a value -- so nothing measures it; its test switches it on
SMALL_TOPS_UNREAD_REPORTED = False
#: ... only where the look there saw a face's marks (pips off layout, a lone pip); False: wherever it
#: read no value
UNREAD_ONLY_WHERE_MARKS_SEEN = True
#: the open part must be at least this share of the hull (a blob filling its hull has no open part:
#: no top face the table's tone beside it; light 4006's two crescents: 0.34 and 0.25)
OPEN_SHARE = 0.05
UNREAD_REASON = "a light die's side faces, its top face the table's tone: no value read"


def open_part_centre(blob: np.ndarray, hull_points: np.ndarray) -> tuple[float, float, float] | None:
    """The middle (x, y in the blob's pixels) of the part of the blob's convex hull the blob leaves
    open, and that part's share of the hull; None when there is none."""
    hull = np.zeros(blob.shape, np.uint8)
    cv2.fillPoly(hull, [hull_points], 1)
    open_ = (hull > 0) & ~blob
    m = cv2.moments(open_.astype(np.uint8), True)
    h = float(np.count_nonzero(hull))
    if m["m00"] <= 0 or h <= 0:
        return None
    return m["m10"] / m["m00"], m["m01"] / m["m00"], m["m00"] / h


#: a measuring hook: set to a list to collect how many dice each firing added (None: nothing kept,
#: the service's default; a scene where it stays empty reads the same with the rule off)
FIRED: list | None = None
