"""Blueprints, one per surface: native chat, OpenAI-compatible, health/config, the page."""
