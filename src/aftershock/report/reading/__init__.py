"""The review document read back: every field it leaves out, written back by the rules of
docs/reviewing.md ("Reading the document")."""

from aftershock.report.reading.document import readable_document

__all__ = ["readable_document"]
