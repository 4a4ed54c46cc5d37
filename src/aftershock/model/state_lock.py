"""How long a review waits for another review of the same target to finish with the review state
(a module of its own: the command line's options need it without loading the state's records)."""

from __future__ import annotations

DEFAULT_LOCK_TIMEOUT_SECONDS = 30.0
