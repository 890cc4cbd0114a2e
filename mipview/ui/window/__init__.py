"""The parts of the main window (:class:`mipview.ui.main_window.MainWindow` composes them).

Each part is a module of plain functions that take the window: its menus and their dialogs
(``menus``), the status bar and error dialogs (``status``), opening files and drag-and-drop
(``opening``), exports (``exporting``), saved runs, baselines and the sampled preview
(``profiling``), the Heatmaps tab's comparisons (``comparisons``), custom shaders
(``custom_shaders``), and the handlers of the workers' replies with their route table (``replies``,
``run_replies``). The window holds the state; a part holds none, so no part keeps the window
in a reference cycle (one the cyclic collector could then free in a worker thread). The parts
never import the window's module: it imports them.
"""
