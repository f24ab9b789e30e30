"""What a Python client of a chobo book kept in PostgreSQL shares with the
clients of every other language: how often a call is sent again, how long
it waits between attempts, and which SQLSTATEs it acts on. The driver part
comes with the clients."""

from __future__ import annotations

MAX_ATTEMPTS = 30
"""How often one call is sent at most while the server keeps answering
with a failure that may be retried."""


def backoff(n: int) -> int:
    """The longest wait, in milliseconds, before attempt n + 1 (n from 0): 1,
    2, 4 ... 128, then 128. The wait itself is drawn at random up to it, so
    that callers that collided do not collide again in step."""
    return 128 if n >= 7 else 1 << n


SERIALIZATION_FAILURE = "40001"
"""Only under REPEATABLE READ or SERIALIZABLE; nothing was written, the call may go again."""
DEADLOCK_DETECTED = "40P01"
"""The book's functions lock in one order and should never meet it; retried all the same."""
IN_FAILED_TRANSACTION = "25P02"
"""The caller's transaction failed earlier; the first error is the telling one."""
BOUNDS_CHANGED = "CB001"
"""chobo's own: an account's row keeps bounds other than the book's."""


def retryable(code: str) -> bool:
    """Whether a call that failed with the SQLSTATE may be sent again
    unchanged; its key makes that safe."""
    return code in (SERIALIZATION_FAILURE, DEADLOCK_DETECTED)
