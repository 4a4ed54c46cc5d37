"""NetworkPolicy rules: policies removed or widened by the change."""
