"""The text of the one repair attempt after a reply that is not valid JSON for its schema."""

from __future__ import annotations

REPLY_CHARS = 400  # of the invalid reply, shown back
REPAIR_NOTE = (
    "\n\nYour previous reply was not valid JSON for the required schema.\n"
    "Error: {error}\nPrevious reply (truncated): {reply}\n"
    "Reply again with only the JSON object, shorter if needed."
)


def repair_note(error: str, bad_reply: str) -> str:
    """What follows the same prompt: what was wrong, and the start of the invalid reply."""
    return REPAIR_NOTE.format(error=error, reply=bad_reply[:REPLY_CHARS])
