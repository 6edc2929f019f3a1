"""Fake servers for the things that cannot run here (no model API is reachable)."""
