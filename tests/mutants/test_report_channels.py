"""Placeholder (filled below)."""
