"""Frozen dataclasses shared by every stage: the vocabulary of a review."""
