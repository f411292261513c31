"""``make bench``: run every ``tests/bench/bench_*.py`` module's ``run()`` and print its report.

Each ``run()`` measures in this process and returns lines of text: figures, the target, and a
ratio against a baseline measured in the same run (so a slower machine shifts both).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    wanted = set(argv)
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda m: m.name):
        if not info.name.startswith("bench_") or (wanted and info.name not in wanted):
            continue
        module = importlib.import_module(f"tests.bench.{info.name}")
        print(f"== {info.name}: {(module.__doc__ or '').strip().splitlines()[0]}")
        for line in module.run():
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
