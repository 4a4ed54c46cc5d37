"""The repository's `.aftershock.yaml`: its settings and their parsing (settings), what a change to it
changes (changes), and the JSON Schema published for it (schema)."""
