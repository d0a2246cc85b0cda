"""The one hash of the project: short, stable names for prompts, messages and configurations."""

from __future__ import annotations

import hashlib


def content_hash(text: str) -> str:
    """Short stable hash of a text (16 hex digits of its SHA-256)."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]
