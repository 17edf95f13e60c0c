"""Grounding: citations, their verification, provenance and feedback."""
