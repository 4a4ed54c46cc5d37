"""Upgrade-safety rules: immutable fields, deletions and renames, API and CRD versions."""
