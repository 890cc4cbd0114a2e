"""mipview: visualise, check and profile GPU mipmap generation strategies."""

from mipview.core.errors import MipviewError

__version__ = "0.1.0"

__all__ = ["MipviewError", "__version__"]
