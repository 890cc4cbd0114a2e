"""Modal windows: texture export, keyboard shortcuts."""
