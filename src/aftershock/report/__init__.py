"""Output formats. The JSON document is canonical; Markdown and terminal output are derived from it."""
