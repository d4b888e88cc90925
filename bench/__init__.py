"""Benchmarks: ``scripts/bench`` runs ``python -m bench.bench``."""
