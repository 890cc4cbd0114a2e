"""A malformed texture file as the container tests check its refusal: the reader's
ContainerError names the fault, and imageio.load makes it one line."""

from __future__ import annotations

import pytest

from mipview.io import imageio
from mipview.io.containers.decode import decode_texture
from mipview.io.containers.texture import ContainerError
from mipview.io.imageio import ImageLoadError


def refused(name: str, data: bytes, *fragments: str, tmp_path, **load) -> None:
    """``data`` saved as ``name`` is refused with each of ``fragments``; ``load``:
    imageio.load's keywords (``volumes=True`` for a volume's own faults)."""
    with pytest.raises(ContainerError) as info:
        decode_texture(name, data, lambda n, what: None)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ImageLoadError) as loaded:
        imageio.load(path, **load)
    assert "\n" not in str(loaded.value) and str(info.value) in str(loaded.value)
