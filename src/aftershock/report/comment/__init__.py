"""The Markdown comment a pull request shows: its sections in a character budget, the concerns and
test evidence as Markdown, the plain diffs folded, and the Mermaid drawing of what the change
reaches."""
