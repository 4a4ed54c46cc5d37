"""Output formats. The JSON document is canonical; Markdown and terminal output are derived from it.
All output code lives here: Markdown (of findings and test evidence too), Mermaid, escaping."""
