"""Nessie Hunt Companion: a table companion for Nessie Hunt and four other Loch-monster games."""

__version__ = "0.1.0"
