"""The distribution: a plain (non-editable) build holds every package, the dashboard's files and the
box profiles, so the dashboard works from any working directory after a plain install."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_holds_every_package_the_dashboard_and_the_box_profiles(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    wheel = next(tmp_path.glob("nessie_companion-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for init in (ROOT / "companion").rglob("__init__.py"):
        assert init.relative_to(ROOT).as_posix() in names
    for toml in (ROOT / "companion").rglob("*.toml"):
        assert toml.relative_to(ROOT).as_posix() in names
    for model in (ROOT / "companion").rglob("*.yml.gz"):  # the dice reader's learned second opinion
        assert model.relative_to(ROOT).as_posix() in names
    for f in (ROOT / "web").rglob("*"):
        if f.is_file() and "__pycache__" not in f.parts:
            assert "companion/web/" + f.relative_to(ROOT / "web").as_posix() in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "nessie-companion = companion.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_ci_calls_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make demo" in readme
    assert "make test" in ci
