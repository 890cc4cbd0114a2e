"""The Image list beside the Format control: the images a file holds when it holds more than
one (an EXR's colour beside its depth, its layers, its parts), as its reader lists them
(``TextureFile.images``). Choosing one asks for the file again with that image's ``#`` suffix;
the window reopens it through its worker, as File > Open does.

Signals
-------
sigChosen(str)  the ``#`` suffix of the image picked ("" for the one read without a choice)
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QWidget

from mipview.io.containers.texture import HeldImage


class ImageChoice(QComboBox):
    sigChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setToolTip("the image of the file to read (a channel, layer or part; FILE#NAME "
                        "on the command line)")
        # a user's pick only: filling the list when a file opens asks for nothing
        self.activated.connect(lambda i: self.sigChosen.emit(str(self.itemData(i))))

    def show_images(self, images: Sequence[HeldImage]) -> None:
        """List ``images``, the one read current; an empty list (a file of one image)."""
        self.clear()
        for image in images:
            text = image.words + (f"  (#{image.suffix})" if image.suffix else "")
            self.addItem(text, image.suffix)
        read = [i for i, image in enumerate(images) if image.read]
        if read:
            self.setCurrentIndex(read[0])
