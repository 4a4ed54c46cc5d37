"""Rendering equal inputs once: the input keys of a render, the content digest of a chart folder,
the render cache (memory over disk) and what of a render may be written to disk."""
