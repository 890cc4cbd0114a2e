"""What the window shows: the pyramid, the heatmaps, the timing chart, the preview, the Batch
and Sweep tabs and their parts. Each view takes frozen messages (mipview.ui.messages)."""
