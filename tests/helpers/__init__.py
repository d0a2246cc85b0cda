"""Helpers shared by the tests: scripted courts, fake servers, runs on the pseudo-model, shared cases."""
