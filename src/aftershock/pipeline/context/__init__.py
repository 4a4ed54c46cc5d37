"""Render contexts: for each chart the change reaches, the contexts it is rendered in (a release
that installs it, its CI values, values the platform injects, placeholders of what it looks up),
the scenarios on them, and the charts refused or left without a dependency before a render starts."""
