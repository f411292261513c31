"""Board-vision commands (docs/board-vision.md)::

    nessie-companion render --scene SCENE.json --out PHOTO.jpg [--truth TRUTH.json] [--box FILE]
    nessie-companion markers --out FILE.svg|FILE.pdf [--box FILE]
    nessie-companion calibrate --empty EMPTY.jpg [--colour american=PHOTO ...] --out CAL.json [--box FILE]
    nessie-companion adjudicate PHOTO [--calibration CAL.json] [--monsters D3b,C5b,E1b | --surface D3b] [--json]
    nessie-companion check-placement --scene SCENE.json [--json]

Exit status: 0 done; 2 bad input or a photo the companion refuses (a one-line reason on stderr;
with ``--json`` the refusal is also printed as JSON on stdout); 1 anything else.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from companion.errors import CompanionError


class VisionInputError(CompanionError, ValueError):
    """A missing or malformed file given to a vision command."""


def register(subparsers) -> None:
    s = subparsers.add_parser("render", help="render a synthetic photo of the board from a scene file")
    s.add_argument("--scene", required=True, help="scene JSON (docs/board-vision.md)")
    s.add_argument("--out", required=True, help="the photo to write (.jpg or .png)")
    s.add_argument("--truth", help="write the truth JSON here (coverage of every hex, sheets, camera)")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.set_defaults(func=cmd_render)

    s = subparsers.add_parser("markers", help="write the printable marker sheet (true scale) with a placement guide")
    s.add_argument("--out", required=True, help="FILE.svg or FILE.pdf")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.set_defaults(func=cmd_markers)

    s = subparsers.add_parser("calibrate", help="calibrate the board vision from an empty-board photo")
    s.add_argument("--empty", required=True, help="a photo of the empty board")
    s.add_argument("--colour", "--color", action="append", default=[], metavar="EXPEDITION=PHOTO",
                   help="a photo with one sheet of that expedition on the loch (repeat per colour)")
    s.add_argument("--out", required=True, help="the calibration file to write (JSON)")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.set_defaults(func=cmd_calibrate)

    s = subparsers.add_parser("adjudicate", help="who sees the monster: coverage and evidence from a board photo")
    s.add_argument("photo", help="an overhead photo of the board")
    s.add_argument("--calibration", help="a calibration file from 'calibrate'")
    s.add_argument("--monsters", help="monster hexes, the surface (head-and-neck) one first: D3b,C5b,E1b")
    s.add_argument("--surface", help="the surface monster's hex; the submerged ones are placed by the rules")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.set_defaults(func=cmd_adjudicate)

    s = subparsers.add_parser("check-placement", help="check the placement rules for the sheets of a scene file")
    s.add_argument("--scene", required=True, help="scene JSON (only its sheets are read)")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--box", help="a box profile file (default: the house default)")
    s.set_defaults(func=cmd_check_placement)


def _box(path):
    from companion.box_profiles import load_box

    return load_box(path)


def _read_json(path: str) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VisionInputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VisionInputError(f"{path}: not valid JSON ({exc})") from None


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise VisionInputError(f"{path}: no such file") from None
    except OSError as exc:
        raise VisionInputError(f"{path}: {exc.strerror or exc}") from None


def _scene(box, path: str):
    from companion.vision.render import Scene

    doc = _read_json(path)
    try:
        scene = Scene.from_json(doc)
    except (KeyError, TypeError, ValueError) as exc:
        raise VisionInputError(f"{path}: not a valid scene ({exc})") from None
    for i, s in enumerate(scene.sheets):
        if s.equipment not in box.equipment:
            raise VisionInputError(f"{path}: sheets[{i}]: unknown equipment {s.equipment!r}")
        if s.expedition not in box.sheet_colours:
            raise VisionInputError(f"{path}: sheets[{i}]: unknown expedition {s.expedition!r}")
    return scene


def cmd_render(args) -> int:
    import cv2

    from companion.vision.render import encode_jpeg, render

    box = _box(args.box)
    scene = _scene(box, args.scene)
    photo, truth = render(box, scene)
    out = Path(args.out)
    if out.suffix.lower() in (".jpg", ".jpeg"):
        out.write_bytes(encode_jpeg(photo, scene.jpeg_quality))
    else:
        if not cv2.imwrite(str(out), cv2.cvtColor(photo, cv2.COLOR_RGB2BGR)):
            raise VisionInputError(f"{out}: cannot write an image there")
    if args.truth:
        Path(args.truth).write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({scene.width}x{scene.height}, {len(scene.sheets)} sheets)", file=sys.stderr)
    return 0


def cmd_markers(args) -> int:
    from companion.vision.markers import to_pdf, to_svg

    box = _box(args.box)
    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix == ".svg":
        out.write_text(to_svg(box), encoding="utf-8")
    elif suffix == ".pdf":
        out.write_bytes(to_pdf(box))
    else:
        raise VisionInputError(f"{out}: write .svg or .pdf")
    print(f"wrote {out}: print at 100 % (actual size) and check the 100 mm ruler", file=sys.stderr)
    return 0


def cmd_calibrate(args) -> int:
    from companion.vision.adjudicate import decode
    from companion.vision.calibrate import calibrate

    box = _box(args.box)
    empty = decode(_read_bytes(args.empty), args.empty)
    colours = {}
    for item in args.colour:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise VisionInputError(f"--colour {item!r}: expected EXPEDITION=PHOTO, e.g. american=blue.jpg")
        colours[name.strip().lower()] = decode(_read_bytes(path), path)
    doc = calibrate(box, empty, colours)
    Path(args.out).write_text(json.dumps(doc) + "\n", encoding="utf-8")
    summary = {"out": args.out, "empty": doc["empty"], "sheet_colours": doc["sheet_colours"]}
    print(json.dumps(summary))
    return 0


def cmd_adjudicate(args) -> int:
    from companion.vision.adjudicate import adjudicate, decode, monsters_from, refusal_json, to_json
    from companion.vision.calibrate import load_calibration
    from companion.vision.registration import VisionRefusal

    box = _box(args.box)
    monsters = monsters_from(box, [m for m in (args.monsters or "").split(",") if m.strip()] or None, args.surface)
    reference, colours = (None, None)
    if args.calibration:
        reference, colours = load_calibration(args.calibration, box)
    data = _read_bytes(args.photo)
    try:
        photo = decode(data, args.photo)
        adj = adjudicate(photo, box, reference=reference, colours=colours)
    except VisionRefusal as exc:
        if args.json:
            print(json.dumps(refusal_json(exc, args.photo)))
        print(f"nessie-companion adjudicate: refused ({exc.reason}): {exc}", file=sys.stderr)
        return 2
    doc = to_json(box, adj, photo, monsters)
    if args.json:
        print(json.dumps(doc))
        return 0
    r = doc["registration"]
    print(f"registered on markers {r['markers_seen']}, error {r['reprojection_error_mm']['rms']:.2f} mm rms; "
          f"reference: {doc['reference']}")
    for e, d in doc["expeditions"].items():
        if d["covered"] or d["sheets"]:
            sheets = ", ".join(s["equipment"] for s in d["sheets"]) or "none identified"
            print(f"  {e}: {len(d['covered'])} hexes covered; sheets: {sheets}")
    for u in doc["unknown_regions"]:
        print(f"  cannot see ({u['reason']}): {', '.join(u['hexes'])}")
    if monsters is not None:
        print(f"monsters: surface {monsters['surface']}, submerged {', '.join(monsters['submerged']) or 'none'}")
        for a in doc["evidence"]:
            print(f"  {a['expedition']} takes {a['cards']} {a['pack']} card for {a['monster']} ({a['sight']})")
        for u in doc["undecided"]:
            print(f"  {u['expedition']} at {u['monster']}: undecided: {u['reason']}")
        if not doc["evidence"] and not doc["undecided"]:
            print("  no evidence this round")
    return 0


def cmd_check_placement(args) -> int:
    from companion.vision.placement import check_all

    box = _box(args.box)
    scene = _scene(box, args.scene)
    found = check_all(box, scene.sheets)
    if args.json:
        print(json.dumps({"legal": not found, "violations": [v.to_json() for v in found]}))
    else:
        for v in found:
            print(f"{v.rule}: {v.message}")
        if not found:
            print("all placements legal")
    return 0 if not found else 3
