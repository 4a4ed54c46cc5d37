"""Hygiene rules about the commits of the range: titles, trailers and leftover fixups."""
