"""The rules core is pure: no I/O, no clock, no randomness. Checked on the imports of every module."""

from __future__ import annotations

import ast
from pathlib import Path

import companion.games.nessie_hunt as pkg

FORBIDDEN = {"os", "io", "time", "datetime", "random", "secrets", "sqlite3", "socket", "threading", "pathlib",
             "subprocess", "shutil", "tempfile", "urllib", "http", "requests", "flask", "serial", "gpiozero", "cv2",
             "tomllib", "logging", "asyncio", "uuid"}


def test_rules_modules_import_nothing_that_does_io_or_chance():
    folder = Path(pkg.__file__).parent
    offenders = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                if name.split(".")[0] in FORBIDDEN:
                    offenders.append(f"{path.name}: {name}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("open", "print", "input"):
                offenders.append(f"{path.name}: calls {node.func.id}()")
    assert offenders == []
