"""Filters and texture kinds beside the 2x2 box (docs/filters.md): kernels, per-axis
tap tables with edge modes, and the options that name them. The exact references they define
are in mipview.check.filter_reference."""
