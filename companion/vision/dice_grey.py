"""A grey photo: one whose three channels are equal (a camera in mono, a greyscale copy).

Several of the reader's rules tell a white, cream or clear die from a coloured one by its face's
chroma (Lab a, b): a face with none is taken for a light die's. In a grey photo every face has
none, whatever the die's colour, so that evidence is not there: a blue die's face reads as a white
die's face in shade. The rules that would act on a face's *lack* of colour ask
:func:`photo_is_grey` first and, in a grey photo, do not act on it (docs/dice-camera.md, thirtieth
round).

A photo is grey when, on a sample of its pixels (every ``SAMPLE_STEP``-th in each direction),
under ``GREY_SHARE`` of them have a channel spread (largest channel less smallest) above
``GREY_SPREAD`` levels. A share, not the 99th percentile: a few small coloured dice on a white
table are well under 1 % of a photo (development ray 4332: its yellow and green dice, 0.13 %).
Measured, the development cache (968 scenes, the fresh pool left out): every colour render had
4.7 or more such samples in 10,000 (light 3100 the fewest; 351 samples); each made grey (BGR ->
GRAY -> BGR), and that re-encoded by OpenCV as JPEG at quality 70, had none (spread 0
everywhere). The spread of 6 leaves room for an encoder that rounds a grey photo's chroma.
"""

from __future__ import annotations

import cv2
import numpy as np

#: a sample's channel spread above this many levels (0-255) is colour ...
GREY_SPREAD = 6
#: ... and a photo with under this share of its samples so is grey (colour renders: 4.7e-4 and up)
GREY_SHARE = 1e-4
#: the sample: every this-many-th pixel in each direction (12 Mpx -> 750,000 pixels; a die of 40 px
#: gives 100 of them)
SAMPLE_STEP = 4


def photo_is_grey(img: np.ndarray) -> bool:
    """Are ``img``'s (BGR) three channels equal, or nearly, nearly everywhere?"""
    if img.ndim < 3 or img.shape[2] < 3:
        return True
    b, g, r = cv2.split(np.ascontiguousarray(img[::SAMPLE_STEP, ::SAMPLE_STEP, :3]))
    # (the spread exceeds GREY_SPREAD when some two channels differ by more: cv2's whole-image steps,
    # 4 ms for a 12 Mpx photo, cost a tenth of numpy's max and min along the channels)
    apart = cv2.max(cv2.max(cv2.absdiff(b, g), cv2.absdiff(g, r)), cv2.absdiff(b, r))
    return cv2.countNonZero(cv2.compare(apart, GREY_SPREAD, cv2.CMP_GT)) < GREY_SHARE * b.size
