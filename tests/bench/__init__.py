"""Benchmark scripts (``python -m tests.bench.NAME``), never collected by pytest."""
