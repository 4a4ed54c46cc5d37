"""Rendering charts with real Helm, behind the `Renderer` interface."""
