"""What varies from render to render of one input: random object names (`names`), and the lines of
a text a template lists in Go's random map order (`lines`)."""
