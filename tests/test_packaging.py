"""The distribution: every package is listed, and the dashboard's files are installed with it."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "companion").rglob("__init__.py")}
    found.add("companion.web")
    assert found <= listed, f"add to pyproject.toml: {sorted(found - listed)}"


def test_dashboard_files_come_with_the_package():
    web = resources.files("companion.web")
    assert web.joinpath("templates/table.html").is_file()
    assert web.joinpath("static/table.js").is_file()
    assert resources.files("companion.games.nessie_hunt").joinpath("default_box.toml").is_file()


def test_ci_calls_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme and "make demo" in readme
    assert "make test" in ci
