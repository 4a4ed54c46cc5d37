"""The command-line edge: parses options, calls the pipeline, prints one line per error."""
