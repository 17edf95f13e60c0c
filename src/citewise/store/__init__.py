"""Persistence: the store contract and its SQLite and PostgreSQL backends."""
