"""Shared test helpers: fixtures, fakes and tiny models."""
