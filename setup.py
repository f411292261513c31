"""Only the package list lives here (pyproject.toml holds the rest): every package under companion/,
found at build time so a new game or room needs no edit, plus the dashboard folder web/ installed
as companion.web."""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["companion", "companion.*"]) + ["companion.web"])
