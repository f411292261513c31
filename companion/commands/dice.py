"""``nessie-companion read-dice PHOTO [PHOTO...] [--json]``: read the dice on photos.

With ``--json`` it prints one list, one entry per photo, in the order given::

    [{"file": "a.jpg", "dice": [{"value": 4, "center": [312.5, 208.0], "confidence": 0.93}],
      "error": null, "unreadable": []}]

``dice`` holds only dice read with a value; a die seen but not read goes to ``unreadable`` (its
centre and the reason), never into ``dice`` with a guess. A photo that cannot be opened (missing,
empty, corrupt) gets an ``error`` string and an empty ``dice`` list; the other photos are still
read. Exit status: with ``--json`` 0 (the errors are in the JSON, so a batch is always parseable);
without it, 2 when any photo could not be opened.
"""

from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    s = subparsers.add_parser("read-dice", help="read the dice on photos (camera dice reader)")
    s.add_argument("photos", nargs="+", metavar="PHOTO", help="image files (JPEG, PNG, ...)")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_read_dice)


def read_photo(path: str) -> dict:
    """One photo's entry of the ``--json`` list."""
    from companion.vision.dice import DiceImageError, read_dice_file

    try:
        found = read_dice_file(path)
    except DiceImageError as exc:
        return {"file": path, "dice": [], "error": str(exc), "unreadable": []}
    except Exception as exc:  # one bad photo must not stop the others
        return {"file": path, "dice": [], "error": f"{path}: {type(exc).__name__}: {exc}", "unreadable": []}
    dice = [{"value": d.value, "center": [round(d.center[0], 1), round(d.center[1], 1)],
             "confidence": round(float(d.confidence), 3)} for d in found if d.value is not None]
    unread = [{"center": [round(d.center[0], 1), round(d.center[1], 1)], "reason": d.reason}
              for d in found if d.value is None]
    return {"file": path, "dice": dice, "error": None, "unreadable": unread}


def cmd_read_dice(args) -> int:
    entries = [read_photo(p) for p in args.photos]
    if args.json:
        print(json.dumps(entries))
    else:
        for e in entries:
            if e["error"]:
                print(f"{e['file']}: error: {e['error']}")
                continue
            values = ", ".join(str(d["value"]) for d in e["dice"]) or "no dice"
            extra = f" ({len(e['unreadable'])} unreadable)" if e["unreadable"] else ""
            total = sum(d["value"] for d in e["dice"])
            print(f"{e['file']}: {values}{extra}" + (f"  total {total}" if len(e["dice"]) > 1 else ""))
    sys.stdout.flush()
    return 2 if not args.json and any(e["error"] for e in entries) else 0
