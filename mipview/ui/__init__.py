"""The desktop app (PySide6 + pyqtgraph). Nothing outside this package imports Qt.

``worker.py`` owns the Vulkan context in one QThread; every other module runs on the UI thread
and only ever sees the frozen dataclasses of :mod:`mipview.ui.messages`.
"""

from mipview.ui.qt_compat import pin_singletons

pin_singletons()
