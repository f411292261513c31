"""A one, two or three read beside a tilted die's side face: the whole top face, or a part of it?

A tilted light die's side face is reported unreadable and its top face, the table's colour, is
read beside it pips first (:mod:`.dice_top_beside_unread`). A one, two or three read there may be a
part of a larger top face -- two pips of a three or a five, the pip by the edge of a two -- the
rest of its pips missed (the lead's held-out reading, session 16: a five and a three read as twos
there). So such a reading replaces the report only when the photo shows it is a whole top face:

* it is the die's top face by its shade: clearly lighter than the side face reported beside it
  (light comes from above, :mod:`.dice_side_shade`), and read cleanly from pips on its own
  lighter face, its square's margin toward the side face on that face, a one at its face's middle
  and alone on it (:func:`.dice_side_shade.reads_clean`, :mod:`.dice_top_clean`);
* a two's or three's square is the face's own: walking from the pips' middle along the square's
  axes, the top face's colour (measured from the photo, :class:`.dice_top_clean.TopFace`) ends
  where a whole face's edge would, about half the read side out -- at its edge with the side face
  at least, the face's darker neighbour; toward a table like the face it may not end at all. Two
  pips of a three (its corner and middle) are read as a two half the die's size, a quarter of the
  face off its middle: the die's edges lie about 0.75 of that small side from them;
* a two's or three's pips are no bigger than a die's pips are against its face: read from a part of
  a larger face, its square is smaller than the die's and the pips large on it (two pips of a
  three read as a two at half the die's side);
* and no other mark like its pips lies on that region (a five's corners left out of a two read
  from its other two corners; a three's middle pip beside a two).

Each test looks at the photo round the reading only; they run for the few readings of one to three
the look gives beside an unreadable report.
"""

from __future__ import annotations

import numpy as np

from .dice_side_shade import SHADE_GAP, face_colour, reads_clean
from .dice_top_clean import ONE_REACH, PIP_CLEAR, face_reach, TopFace, alone_on_its_face


#: the top face's end along an axis of the read square counts as the face's own edge when it lies
#: within this many read sides of the pips' middle (a whole face's edge is half a side out, less its
#: bevel and a tilt's foreshortening; development, the ones to threes read right beside a side
#: face: 0.31-0.63). A part of a larger face has the die's edges farther: two pips of a three (its
#: corner and middle), read as a two of half the die's side a quarter of a side off the face's
#: middle, 0.75 of its read side on a drawn die with sharp edges; on rendered parts (rounded, shaded
#: edges) 0.53-0.76 or no end found -- so this test alone does not tell them apart; the pips' size
#: and the other marks on the face do most of the work. Set between the right readings and 0.75.
EDGE_WITHIN = 0.7
#: ... and an end within this many read sides but beyond EDGE_WITHIN is an edge where a whole face has
#: none: the reading is a part. Farther than this the walk has left the die (its half-diagonal is
#: 0.71 of its side) and crossed a table like the face to whatever lies beyond (light 14: an ivory
#: three's face open to the white table, ending 1.15 sides out): an end there says nothing.
EDGE_LOOK = 0.9
#: a two's or three's pips' radius is at most this share of its read side: dice's pips are 13-20 %
#: of their face across (radius 0.065-0.1 of its side; development, the twos and threes read right
#: beside a side face: 0.05-0.09); a part of a larger face read at half the die's side has pips of
#: twice that share, 0.13 or more. Set between, with room for a blurred pip's halo.
PIP_SHARE_MOST = 0.11


def whole_top_face(top, side, img: np.ndarray) -> bool:
    """Is ``top`` (a one, two or three read pips first beside ``side``, an unreadable report of
    the die's side face) the die's whole top face? (Module docstring.) A reading without its pips,
    or with other pips than its value, cannot be checked: no."""
    if top.pips is None or len(top.pips) != top.value:
        return False
    light_top, light_side = face_colour(img, top)[0], face_colour(img, side)[0]
    if light_top - light_side < SHADE_GAP:
        return False  # (no lighter face than the side face's: which face is the top is not known)
    mid = (light_top + light_side) / 2  # (Lab L halfway between the two faces')
    if not reads_clean(top, side, img, mid):
        return False
    if top.value == 1:
        return True  # (its middle and its being alone: reads_clean's checks for a one)
    if float(np.median([p[2] for p in top.pips])) > PIP_SHARE_MOST * top.side_px:
        return False  # (pips too large for the square: a part of a larger face, read small)
    face = TopFace(img, top, mid)
    return edges_where_a_face_has_them(face, top.pips, top.side_px) \
        and alone_on_its_face(face, list(top.pips), ONE_REACH * max(top.side_px, side.side_px))


def face_ends(face: TopFace, pips, side: float) -> list[float | None]:
    """How far (in read sides ``side``) the top face's colour reaches from the middle of a two's or
    three's ``pips`` (on a diagonal of their face) along each of the square's axes, both ways (the
    diagonal turned by 45 degrees either way): None where it does not end within EDGE_LOOK."""
    z = [complex(p[0], p[1]) for p in pips]
    centre = sum(z) / len(z)
    far = max(z, key=lambda q: abs(q - centre))
    if abs(far - centre) <= 0:
        return []
    diagonal = (far - centre) / abs(far - centre)
    pr = float(np.median([p[2] for p in pips]))
    ends = []
    for u in (diagonal * 1j ** 0.5, diagonal * 1j ** -0.5, -diagonal * 1j ** 0.5, -diagonal * 1j ** -0.5):
        end = face_reach(face, (centre.real, centre.imag), (u.real, u.imag), PIP_CLEAR * pr, EDGE_LOOK * side, pr)
        ends.append(None if end is None else end / side)
    return ends


def edges_where_a_face_has_them(face: TopFace, pips, side: float) -> bool:
    """Does the top face end within EDGE_WITHIN read sides of the pips' middle along an axis of
    their square (its edge with the side face, at least), and nowhere farther within EDGE_LOOK?"""
    ends = [e for e in face_ends(face, pips, side) if e is not None]
    return bool(ends) and max(ends) <= EDGE_WITHIN
