"""mipview: visualise, check and profile GPU mipmap generation strategies."""

__version__ = "0.1.0"


class MipviewError(Exception):
    """An error with a message a person can act on (CLI: one line on stderr, exit 2)."""
