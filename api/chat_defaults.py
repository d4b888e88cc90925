"""Defaults shared by the chat surfaces and advertised by /api/config."""

DEFAULT_MAX_TURNS = 10  # the original design kept the last 10 exchanges
