"""The Heatmaps tab's Encode control: a codec and its quality (what ``mipview run --encode``
takes as ``bc7:quality=2``), whether FLIP and SSIM are wanted too, and a button that encodes the result shown and, while it runs,
stops it. It keeps what each result's latest encode brought (:class:`mipview.ui.messages.
Encoded`), so the tab shows a result's codec and total errors whenever it is selected again.

Signals
-------
sigEncode(str)  the codec asked for, as the command line writes it
sigStop()       the encode under way is of no use any more
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from mipview.io.containers.encoders import CODECS
from mipview.ui.messages import Encoded

ENCODE, STOP = "Encode", "Stop encoding"


class EncodeBar(QWidget):
    sigEncode = Signal(str)
    sigStop = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.codec_combo = QComboBox()
        self.codec_combo.addItems(list(CODECS))
        self.codec_combo.setToolTip("Block-compress the result shown, decode it back and judge "
                                    "the codec's and the total error per level")
        self.quality_combo = QComboBox()
        self.quality_combo.setToolTip("The encoder's quality (the first is its default)")
        # off by default: at 4096x4096 FLIP and SSIM hold the job for tens of seconds,
        # far longer than the encoder
        self.perceptual_box = QCheckBox("FLIP/SSIM")
        self.perceptual_box.setToolTip(
            "Also judge each level's filter, codec and total pairs with FLIP and SSIM (the "
            "perceptual extra). Costly: a 4096x4096 chain holds the encode for tens of seconds "
            "(about 97 s on 2 cores), far longer than the encoder")
        self.button = QPushButton(ENCODE)
        self.button.clicked.connect(self._clicked)
        self.codec_combo.currentTextChanged.connect(self._offer_qualities)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        for label, w in (("Encode as", self.codec_combo), ("quality", self.quality_combo)):
            lay.addWidget(QLabel(label))
            lay.addWidget(w)
        lay.addWidget(self.perceptual_box)
        lay.addWidget(self.button)
        lay.addStretch(1)
        self._offer_qualities(self.codec_combo.currentText())
        #: the encode under way, None when none
        self.running: int | None = None
        #: each result's latest encode, by strategy
        self.results: dict[str, Encoded] = {}

    def _offer_qualities(self, name: str) -> None:
        self.quality_combo.clear()
        self.quality_combo.addItems(list(CODECS[name].qualities))

    def choose(self, codec: str, quality: str | None = None) -> None:
        self.codec_combo.setCurrentText(codec)
        if quality is not None:
            self.quality_combo.setCurrentText(quality)

    def spec(self) -> str:
        """The codec chosen as the command line writes it: ``bc7`` or ``bc7:quality=2``."""
        codec, quality = self.codec_combo.currentText(), self.quality_combo.currentText()
        return codec if quality == CODECS[codec].qualities[0] else f"{codec}:quality={quality}"

    def perceived(self) -> bool:
        """Whether the encode asked for brings FLIP and SSIM too."""
        return self.perceptual_box.isChecked()

    def _clicked(self) -> None:
        if self.running is None:
            self.sigEncode.emit(self.spec())
        else:
            self.sigStop.emit()

    def set_running(self, job: int | None) -> None:
        self.running = job
        self.button.setText(ENCODE if job is None else STOP)

    def job_finished(self, job: int) -> None:
        if job == self.running:
            self.set_running(None)

    def add(self, out: Encoded) -> None:
        self.results[out.strategy] = out

    def encoded(self, strategy: str) -> Encoded | None:
        return self.results.get(strategy)

    def clear(self) -> None:
        """A new Run: the encodes shown were of the one before."""
        self.results = {}
