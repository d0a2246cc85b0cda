"""Transcripts: events, writing, reading, replay and audit."""
