"""Synthetic photos of the board for tests and the demo (``nessie-companion render``).

A *scene* (JSON, documented in docs/board-vision.md) places transparencies on the board and
describes the camera and the light; :func:`render` returns the photo (RGB uint8) and its *truth*:
every hex's exact coverage per expedition (sheets.hex_coverage), the hexes hidden by glare, a hand,
a deep shadow or the frame's edge, and where each hex centre and marker corner lands in the photo.

Transparencies are coloured filters: under a sheet the light is multiplied by the expedition's
sheet colour / 255 (``box.sheet_colours``), and overlaps multiply.  Everything is drawn as vector
shapes through the camera (perspective, lens distortion) at twice the output resolution and
reduced, then lit (uneven light, colour temperature, shadows, glare), blurred, noised and
JPEG-compressed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from . import boardart
from .sheets import LINE_MM, SheetPose, hex_coverage, outline

SKIN = (0.80, 0.60, 0.50)


@dataclass
class Camera:
    """A pinhole camera with radial distortion looking down at the board."""

    width: int
    height: int
    R: np.ndarray  # world -> camera rotation (rows: camera x, y, z in board axes; z into the table)
    position: np.ndarray  # in board mm (z negative: above the table)
    f: float
    cx: float
    cy: float
    k1: float = 0.0
    k2: float = 0.0

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Board mm (n, 2) -> pixel coordinates (n, 2), pixel centres at integers."""
        p = np.c_[np.asarray(pts_mm, float), np.zeros(len(pts_mm))]
        c = (p - self.position) @ self.R.T
        x, y = c[:, 0] / c[:, 2], c[:, 1] / c[:, 2]
        r2 = x * x + y * y
        k = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return np.c_[self.f * x * k + self.cx, self.f * y * k + self.cy]

    def scale_at(self, pt_mm) -> float:
        """Pixels per mm near a board point."""
        p = np.array([pt_mm, (pt_mm[0] + 1.0, pt_mm[1]), (pt_mm[0], pt_mm[1] + 1.0)], float)
        q = self.project(p)
        return float((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[0])) / 2)

    def to_json(self) -> dict:
        return {"width": self.width, "height": self.height, "R": self.R.round(9).tolist(),
                "position_mm": self.position.round(6).tolist(), "f_px": self.f, "cx": self.cx, "cy": self.cy,
                "k1": self.k1, "k2": self.k2}


def make_camera(box, width: int, height: int, tilt_deg: float = 0.0, azimuth_deg: float = 0.0,
                roll_deg: float = 0.0, fill: float = 0.9, k1: float = 0.0, k2: float = 0.0,
                fov_deg: float = 60.0, offset=(0.0, 0.0)) -> Camera:
    """A camera that sees the whole board filling ``fill`` of the frame."""
    t, a, r = map(math.radians, (tilt_deg, azimuth_deg, roll_deg))
    d = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])
    xw = np.array([1.0, 0.0, 0.0]) - d * d[0]
    xw /= np.linalg.norm(xw)
    yw = np.cross(d, xw)
    xc = xw * math.cos(r) + yw * math.sin(r)
    yc = np.cross(d, xc)
    R = np.array([xc, yc, d])
    centre = np.array([box.width / 2, box.height / 2, 0.0])
    f0 = width / 2 / math.tan(math.radians(fov_deg) / 2)
    dist = max(box.width, box.height) * 1.2 * f0 / width
    position = centre - dist * d
    cam = Camera(width, height, R, position, 1.0, 0.0, 0.0, k1, k2)
    border = boardart.densify(np.array([[0, 0], [box.width, 0], [box.width, box.height], [0, box.height]], float), 20)
    q = np.abs(cam.project(border))  # normalised, about the optical axis (the board's centre)
    f = min(width / 2 * fill / q[:, 0].max(), height / 2 * fill / q[:, 1].max())
    cam.f = float(f)
    cam.cx = float((width - 1) / 2 + offset[0])
    cam.cy = float((height - 1) / 2 + offset[1])
    return cam


@dataclass
class Scene:
    sheets: list[SheetPose] = field(default_factory=list)
    width: int = 1600
    height: int = 1200
    camera: dict = field(default_factory=dict)
    lighting: dict = field(default_factory=dict)
    glare: list[dict] = field(default_factory=list)
    shadows: list[dict] = field(default_factory=list)
    hands: list[dict] = field(default_factory=list)
    hidden_markers: list[int] = field(default_factory=list)
    noise: float = 0.01
    blur_px: float = 0.6
    jpeg_quality: int = 90
    tracks: bool = True
    seed: int = 0
    colours: dict | None = None  # expedition -> [r, g, b]; default box.sheet_colours
    # per sheet, its own colour ([r, g, b], or None for its expedition's): print runs differ
    sheet_colours: list | None = None
    edge: float = 0.0  # a sheet's cut edge darkens (< 0: refraction) or brightens (> 0) light by this
    supersample: int = 2  # drawn at this multiple of the output size, then reduced (anti-aliasing)

    @classmethod
    def from_json(cls, d: dict) -> "Scene":
        known = set(cls.__dataclass_fields__)
        unknown = set(d) - known - {"image", "box"}
        if unknown:
            raise ValueError(f"unknown scene key(s): {', '.join(sorted(unknown))}")
        kw = {k: v for k, v in d.items() if k in known and k != "sheets"}
        img = d.get("image", {})
        if img:
            kw["width"], kw["height"] = int(img["width"]), int(img["height"])
        return cls(sheets=[SheetPose.from_json(s) for s in d.get("sheets", [])], **kw)

    def to_json(self) -> dict:
        return {"image": {"width": self.width, "height": self.height}, "camera": self.camera,
                "lighting": self.lighting, "glare": self.glare, "shadows": self.shadows, "hands": self.hands,
                "hidden_markers": self.hidden_markers, "noise": self.noise, "blur_px": self.blur_px,
                "jpeg_quality": self.jpeg_quality, "tracks": self.tracks, "seed": self.seed,
                "supersample": self.supersample,
                **({"colours": self.colours} if self.colours else {}),
                **({"sheet_colours": self.sheet_colours} if self.sheet_colours else {}),
                **({"edge": self.edge} if self.edge else {}),
                "sheets": [s.to_json() for s in self.sheets]}


def _disc(at, r, n=32):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[at[0] + r * np.cos(a), at[1] + r * np.sin(a)]


def render(box, scene: Scene) -> tuple[np.ndarray, dict]:
    """The photo (h x w x 3 RGB uint8, before JPEG) and the truth document."""
    rng = np.random.default_rng(scene.seed)
    W, H = scene.width, scene.height
    c = scene.camera
    cam = make_camera(box, W, H, c.get("tilt_deg", 0.0), c.get("azimuth_deg", 0.0), c.get("roll_deg", 0.0),
                      c.get("fill", 0.92), c.get("k1", 0.0), c.get("k2", 0.0), c.get("fov_deg", 60.0),
                      c.get("offset_px", (0.0, 0.0)))
    ss = max(1, int(scene.supersample))
    big = Camera(W * ss, H * ss, cam.R, cam.position, cam.f * ss, cam.cx * ss + (ss - 1) / 2,
                 cam.cy * ss + (ss - 1) / 2, cam.k1, cam.k2)
    img = np.zeros((H * ss, W * ss, 3), np.float32)
    boardart.draw_board(img, box, big.project, tracks=scene.tracks, hidden_markers=scene.hidden_markers,
                        step_mm=10.0)
    colours = scene.colours or box.sheet_colours
    own = scene.sheet_colours or [None] * len(scene.sheets)
    for pose, col in zip(scene.sheets, own):
        poly = outline(box, pose)
        T = np.asarray(col if col is not None else colours[pose.expedition], np.float32) / 255.0
        _apply_filter(img, boardart.densify(poly, 5.0), big.project, T)
    if scene.edge:
        _edges(img, box, scene, big)
    for hand in scene.hands:
        poly = np.asarray(hand["polygon_mm"], float)
        m = _roi_mask(img.shape[:2], boardart.densify(poly, 5.0), big.project)
        if m is not None:
            (y0, y1, x0, x1), a = m
            shade = np.asarray(hand.get("colour", SKIN), np.float32)
            img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - a[..., None]) + shade * a[..., None]
    img = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)

    light = scene.lighting
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    u, v = (xx - W / 2) / (W / 2), (yy - H / 2) / (H / 2)
    ga = math.radians(light.get("gradient_angle_deg", 0.0))
    field_ = 1 + light.get("gradient", 0.0) * (u * math.cos(ga) + v * math.sin(ga)) / 2
    field_ *= 1 - light.get("vignetting", 0.0) * (u * u + v * v) / 2
    gains = np.asarray(_kelvin_gains(light.get("colour_temperature_k", 5500)), np.float32)
    gains *= np.asarray(light.get("cast", (1.0, 1.0, 1.0)), np.float32)  # a tinted bulb or white balance
    img *= (field_ * light.get("exposure", 1.0))[..., None] * gains

    for sh in scene.shadows:
        poly = boardart.densify(np.asarray(sh["polygon_mm"], float), 5.0)
        m = boardart.mask((H, W), [poly], cam.project)
        soft = sh.get("softness_mm", 8.0) * cam.scale_at(poly.mean(0))
        if soft > 0.5:
            m = cv2.GaussianBlur(m, (0, 0), soft / 2)
        img *= (1 - sh.get("depth", 0.5) * m)[..., None]
    glare_field = np.zeros((H, W), np.float32)
    for g in scene.glare:
        at = np.asarray(g["at_mm"], float)
        p = cam.project(at[None])[0]
        sigma = g.get("radius_mm", 30.0) * cam.scale_at(at) / 2
        glare_field += g.get("strength", 1.5) * np.exp(-((xx - p[0]) ** 2 + (yy - p[1]) ** 2) / (2 * sigma * sigma))
    img += glare_field[..., None] * np.array([1.0, 0.98, 0.95], np.float32)

    if scene.blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur_px)
    if scene.noise > 0:
        img += rng.normal(0, scene.noise, img.shape).astype(np.float32) * np.sqrt(np.clip(img, 0.05, 1.0))
    photo = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)

    truth = _truth(box, scene, cam, glare_field)
    return photo, truth


def _kelvin_gains(k: float) -> tuple[float, float, float]:
    """Rough white-balance error of light at ``k`` kelvin on a camera balanced for 5500 K."""
    t = (k - 5500) / 2500
    return (float(np.clip(1 - 0.18 * t, 0.6, 1.3)), 1.0, float(np.clip(1 + 0.22 * t, 0.6, 1.3)))


def _roi_mask(shape, poly_mm, mapper):
    pts = mapper(poly_mm)
    x0, y0 = np.floor(pts.min(0)).astype(int) - 2
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 3
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, shape[1]), min(y1, shape[0])
    if x1 <= x0 or y1 <= y0:
        return None
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    q = np.round((pts - [x0, y0]) * (1 << boardart.SHIFT)).astype(np.int32)
    cv2.fillPoly(m, [q], 255, lineType=cv2.LINE_AA, shift=boardart.SHIFT)
    return (y0, y1, x0, x1), m.astype(np.float32) / 255.0


def _apply_filter(img, poly_mm, mapper, T):
    got = _roi_mask(img.shape[:2], poly_mm, mapper)
    if got is None:
        return
    (y0, y1, x0, x1), a = got
    img[y0:y1, x0:x1] *= 1 - a[..., None] * (1 - T)


def _edges(img, box, scene: Scene, cam: Camera, width_mm: float = 0.4) -> None:
    """Every sheet's cut edge as a thin line darkening or brightening the light by ``scene.edge``."""
    m = np.zeros(img.shape[:2], np.uint8)
    px_per_mm = cam.scale_at((box.width / 2, box.height / 2))
    thick = max(1, int(round(width_mm * px_per_mm)))
    for pose in scene.sheets:
        pts = cam.project(boardart.densify(outline(box, pose), 5.0))
        q = np.round(pts * (1 << boardart.SHIFT)).astype(np.int32)
        cv2.polylines(m, [q], True, 255, thick, lineType=cv2.LINE_AA, shift=boardart.SHIFT)
    img *= (1 + scene.edge * (m.astype(np.float32) / 255.0))[..., None]


def _truth(box, scene: Scene, cam: Camera, glare_field: np.ndarray) -> dict:
    cov = hex_coverage(box, scene.sheets)
    H, W = glare_field.shape
    hidden = {}
    for h in box.loch.hexes:
        poly = np.asarray(h.polygon, float)
        samples = np.vstack([poly, poly.mean(0)[None], (poly + np.roll(poly, -1, 0)) / 2])
        px = cam.project(samples)
        inside = (px[:, 0] >= 1) & (px[:, 0] < W - 1) & (px[:, 1] >= 1) & (px[:, 1] < H - 1)
        if not inside.all():
            hidden[h.address] = "out of frame"
            continue
        g = glare_field[px[:, 1].astype(int), px[:, 0].astype(int)]
        if g.max() > 0.03:
            hidden[h.address] = "glare"
    for sh in scene.shadows:
        if sh.get("depth", 0.5) >= 0.6:
            poly = np.asarray(sh["polygon_mm"], float)
            margin = sh.get("softness_mm", 8.0)
            for h in box.loch.hexes:
                if _near(np.asarray(h.polygon, float), poly, margin):
                    hidden.setdefault(h.address, "shadow")
    for hand in scene.hands:
        poly = np.asarray(hand["polygon_mm"], float)
        for h in box.loch.hexes:
            if _near(np.asarray(h.polygon, float), poly, 2.0):
                hidden.setdefault(h.address, "hand")
    markers_px = {str(m.id): cam.project(np.asarray(m.corners, float)).round(3).tolist()
                  for m in box.markers if m.id not in scene.hidden_markers}
    return {
        "schema": "nessie-vision-truth/1",
        "line_mm": LINE_MM,
        "sheets": [s.to_json() for s in scene.sheets],
        "coverage": {e: {a: {"covered": d.covered, "close": d.close} for a, d in sorted(per.items())}
                     for e, per in sorted(cov.items())},
        "hidden": dict(sorted(hidden.items())),
        "hex_centres_px": {h.address: [round(float(v), 3) for v in cam.project(np.asarray([h.center], float))[0]]
                           for h in box.loch.hexes},
        "markers_px": markers_px,
        "camera": cam.to_json(),
    }


def _near(hex_poly, poly, margin) -> bool:
    from .sheets import polygon_distance
    return polygon_distance(hex_poly, poly) <= margin


def encode_jpeg(photo_rgb: np.ndarray, quality: int = 90) -> bytes:
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(photo_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


# ----------------------------------------------------------------------------------------------
# Random scenes

EXPEDITION_NAMES = ("independent", "japanese", "british", "american")
POINTED = ("eye_witness", "surface_camera", "underwater_camera", "sonar")


def random_sheets(box, rng: np.random.Generator, n_min: int = 4, n_max: int = 14) -> list[SheetPose]:
    """Sheets in plausible places: pointed ends on the shore, biological units and cages on the loch."""
    shore = np.asarray(box.loch.shore_outline, float)
    ys = shore[:, 1]
    north, south = ys.min(), ys.max()
    x_lo, x_hi = shore[:, 0].min() + 10, shore[:, 0].max() - 10
    out = []
    for _ in range(int(rng.integers(n_min, n_max + 1))):
        exp = EXPEDITION_NAMES[int(rng.integers(4))]
        kind = rng.choice(["eye_witness", "surface_camera", "underwater_camera", "sonar", "biological_unit", "cage"],
                          p=[0.3, 0.25, 0.15, 0.15, 0.08, 0.07])
        if kind in POINTED:
            x = float(rng.uniform(x_lo, x_hi))
            if rng.random() < 0.5:
                y, ang = north + float(rng.uniform(-6, 4)), float(rng.uniform(-50, 50))
            else:
                y, ang = south + float(rng.uniform(-4, 6)), 180 + float(rng.uniform(-50, 50))
        elif kind == "biological_unit":
            x, y = float(rng.uniform(x_lo, x_hi)), float(rng.uniform(north + 15, south - 15))
            ang = float(rng.uniform(0, 360))
        else:
            h = box.loch.hexes[int(rng.integers(len(box.loch)))]
            x, y = h.center[0] + float(rng.uniform(-1.5, 1.5)), h.center[1] + float(rng.uniform(-1, 1))
            ang = float(rng.uniform(-8, 8))
        out.append(SheetPose(exp, str(kind), round(x, 3), round(y, 3), round(ang, 3)))
    return out


def random_scene(box, seed: int, width: int = 1600, height: int = 1200, *, max_tilt: float = 35.0,
                 glare: bool = True, shadows: bool = True, hands: bool = False, hidden_markers=(),
                 distortion: float = 0.04, broad: bool = False) -> Scene:
    """A seeded random scene: sheets, camera, light and artefacts.

    ``broad``: also vary what real boxes and rooms vary and the first scenes did not (see
    :func:`broaden`); drawn from a second random stream, so a seed keeps its sheets, camera and
    light either way.
    """
    rng = np.random.default_rng(seed)
    camera = {"tilt_deg": float(rng.uniform(0, max_tilt)), "azimuth_deg": float(rng.uniform(0, 360)),
              "roll_deg": float(rng.uniform(-8, 8)), "fill": float(rng.uniform(0.85, 0.95)),
              "k1": float(rng.uniform(-distortion, distortion)), "fov_deg": float(rng.uniform(50, 70))}
    lighting = {"gradient": float(rng.uniform(0, 0.4)), "gradient_angle_deg": float(rng.uniform(0, 360)),
                "vignetting": float(rng.uniform(0, 0.25)), "colour_temperature_k": float(rng.uniform(3500, 7000)),
                "exposure": float(rng.uniform(0.85, 1.05))}
    loch = np.asarray(box.loch.shore_outline, float)
    lo, hi = loch.min(0), loch.max(0)
    g = []
    if glare and rng.random() < 0.6:
        g.append({"at_mm": [float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1], hi[1]))],
                  "radius_mm": float(rng.uniform(10, 30)), "strength": float(rng.uniform(0.8, 2.0))})
    s = []
    if shadows and rng.random() < 0.5:
        cx, cy = float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1] - 60, hi[1] + 60))
        w, h = float(rng.uniform(40, 150)), float(rng.uniform(30, 120))
        s.append({"polygon_mm": [[cx, cy], [cx + w, cy + 10], [cx + w - 20, cy + h], [cx - 10, cy + h - 15]],
                  "depth": float(rng.uniform(0.15, 0.45)), "softness_mm": float(rng.uniform(5, 20))})
    hs = []
    if hands:
        cx = float(rng.uniform(lo[0] + 50, hi[0] - 50))
        hs.append({"polygon_mm": [[cx - 30, 560], [cx + 30, 560], [cx + 35, hi[1] - 20], [cx + 10, hi[1] - 45],
                                  [cx - 20, hi[1] - 40], [cx - 38, hi[1] - 10]]})
    scene = Scene(sheets=random_sheets(box, rng), width=width, height=height, camera=camera, lighting=lighting,
                  glare=g, shadows=s, hands=hs, hidden_markers=list(hidden_markers),
                  noise=float(rng.uniform(0.005, 0.02)), blur_px=float(rng.uniform(0.3, 0.9)),
                  jpeg_quality=int(rng.integers(75, 96)), seed=seed)
    return broaden(box, scene, np.random.default_rng([seed, 1])) if broad else scene


def broaden(box, scene: Scene, rng: np.random.Generator) -> Scene:
    """What the first random scenes held fixed or narrow, varied as real boxes and rooms vary it.

    - Sheet colour: each expedition's print run off the profile's colour (transmission scaled
      per channel by up to about +-12 %, a little more in the dark channels), and each sheet a
      little off its run (+-3 %).
    - Cut edges: a thin line along every sheet's edge, darker (refraction) or brighter (a highlight).
    - A colour cast the colour temperature does not explain (a tinted bulb, white balance): up to
      about +-6 % per channel; stronger vignetting (cheap lenses), up to 0.45.
    """
    base = scene.colours or box.sheet_colours
    run = {}
    for e, c in base.items():
        T = np.clip(np.asarray(c, float) / 255.0, 0.02, 1.0)
        # in log terms, so dark channels stay dark: T ** (1 + d) moves them proportionally
        run[e] = T ** (1 + rng.normal(0, 0.08, 3)) * (1 + rng.normal(0, 0.03, 3))
    scene.sheet_colours = [
        np.clip(255 * run[p.expedition] * (1 + rng.normal(0, 0.015, 3)), 1, 255).round(1).tolist()
        for p in scene.sheets]
    scene.edge = float(rng.uniform(-0.25, 0.12))
    light = dict(scene.lighting)
    light["cast"] = np.clip(1 + rng.normal(0, 0.03, 3), 0.9, 1.1).round(4).tolist()
    light["vignetting"] = float(max(light.get("vignetting", 0.0), rng.uniform(0, 0.45)))
    scene.lighting = light
    return scene


def harsh_light(box, scene: Scene, rng: np.random.Generator) -> Scene:
    """The scene under harsher light than ``random_scene`` draws: one to three glare spots (small
    and sharp to broad and faint) and one or two shadows, some deep enough to hide what lies
    under them.  For testing that glare and shadow never pass for a sheet (an evaluation set of
    its own; the seed's sheets, camera and base light are kept)."""
    loch = np.asarray(box.loch.shore_outline, float)
    lo, hi = loch.min(0), loch.max(0)
    scene.glare = [{"at_mm": [float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1], hi[1]))],
                    "radius_mm": float(rng.uniform(6, 40)), "strength": float(rng.uniform(0.3, 2.5))}
                   for _ in range(int(rng.integers(1, 4)))]
    scene.shadows = []
    for _ in range(int(rng.integers(1, 3))):
        cx, cy = float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1] - 40, hi[1] + 40))
        w, h = float(rng.uniform(30, 160)), float(rng.uniform(25, 120))
        scene.shadows.append({"polygon_mm": [[cx, cy], [cx + w, cy + 10], [cx + w - 20, cy + h], [cx - 10, cy + h - 15]],
                              "depth": float(rng.uniform(0.2, 0.85)), "softness_mm": float(rng.uniform(1, 20))})
    return scene
