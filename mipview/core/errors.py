"""The one kind of error mipview shows as it is."""


class MipviewError(Exception):
    """An error with a message a person can act on (CLI: one line on stderr, exit 2; the window:
    a dialog)."""
