"""Rules over observed test and render outcomes: what the change broke that worked at base."""
