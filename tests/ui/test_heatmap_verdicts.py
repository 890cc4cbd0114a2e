"""Each strategy's verdict reaches the Heatmaps tab once, as its ``StrategyAnalysed`` arrives; the
Run's ``RunAnalysed`` brings only what is run-wide (the verdicts' line in the status bar), not
the verdicts again. The tab ends as it did when each verdict came twice."""

from __future__ import annotations

from collections import Counter

import numpy as np
from PySide6.QtCore import Qt

from mipview.ui.views.heatmap_view import HeatmapView
from tests.ui.test_main_window import SPECS, WAIT_MS, open_and_wait


def _shown(heat: HeatmapView, name: str | None = None) -> tuple:
    """What the tab shows (of ``name`` against the exact reference, once selected): every cell
    of its table (text and value), the worst level, the summary and the maps."""
    if name is not None:
        heat.select(name)
    table = heat.table
    cells = [[(c.text(), c.data(Qt.ItemDataRole.UserRole)) if (c := table.item(r, k)) else None
              for k in range(table.columnCount())] for r in range(table.rowCount())]
    return cells, heat.worst_level, heat.summary.text(), heat.maps


def _same(a: tuple, b: tuple) -> bool:
    *rest_a, maps_a = a
    *rest_b, maps_b = b
    return rest_a == rest_b and len(maps_a) == len(maps_b) and all(
        np.array_equal(x, y) for x, y in zip(maps_a, maps_b, strict=True))


def test_each_verdict_reaches_the_heatmap_once_as_it_arrives(qtbot, make_window, small_png,
                                                              monkeypatch):
    w = make_window()
    open_and_wait(qtbot, w, small_png)
    qtbot.waitUntil(lambda: not w.is_busy(), timeout=WAIT_MS)
    heat = w.heatmap
    parts, analyses, calls = [], [], []
    w.sigStrategyShown.connect(parts.append)
    w.sigAnalysisShown.connect(analyses.append)
    real = heat.add_errors
    # each call, with how many strategies and analyses the window had shown before it
    monkeypatch.setattr(heat, "add_errors", lambda errors: (
        calls.append((errors, len(parts), len(analyses))), real(errors))[1])
    w.panel.set_specs(SPECS)
    w.panel.repeat_spin.setValue(0)
    with qtbot.waitSignal(w.sigJobFinished, timeout=WAIT_MS,
                          check_params_cb=lambda j: j == w.latest_job("run")):
        qtbot.mouseClick(w.panel.run_button, Qt.MouseButton.LeftButton)
    assert w.errors == [] and len(analyses) == 1 and len(parts) == 2

    assert Counter(str(e.spec) for e, _, _ in calls) == {str(s): 1 for s in SPECS}
    # the k-th came with the k-th StrategyAnalysed (before the window told of it), none after
    # the Run's analysis
    assert [(seen, ended) for _, seen, ended in calls] == [(k, 0) for k in range(len(parts))]
    assert all(e is p.errors for (e, _, _), p in zip(calls, parts, strict=True))

    # the tab as before: a view given every verdict twice, by message and at the Run's end
    twice = HeatmapView()
    qtbot.addWidget(twice)
    twice.set_run(w.output)
    for errors in [p.errors for p in parts] + list(analyses[0].errors):
        twice.add_errors(errors)
    # as the Run left it (drawn as the verdicts came), then each strategy chosen
    assert heat.strategy() == twice.strategy() and _same(_shown(heat), _shown(twice))
    for e in analyses[0].errors:
        name = str(e.spec)
        assert heat.exact[name] is e
        shown = _shown(heat, name)
        assert _same(shown, _shown(twice, name)), name
        # and what it shows is the verdict's figures, level by level
        assert [row[2][1] for row in shown[0]] == [level.max_error for level in e.levels]
    twice.shutdown()
