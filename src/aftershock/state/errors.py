"""The errors of the review-state store, each a one-line AftershockError."""

from __future__ import annotations

from aftershock.model.errors import AftershockError


class StateError(AftershockError):
    """The state database cannot be opened, read or written, or a decision refers to nothing."""


class StateUnavailableError(StateError):
    """The state database could not be reached, or dropped the connection (refused, reset, shut
    down): worth trying again later, unlike a query or schema that is wrong."""


class StateSchemaError(StateError):
    """The state database has a schema this aftershock cannot use (newer, or unknown)."""


class StateBusyError(StateError):
    """Another review of the same target holds its lock longer than we were willing to wait."""

    exit_code = 3
