"""The bottom layer: pixel formats, strategy specs, the frozen data that crosses threads
(results, timings, clocks), errors, cooperative cancel, row bands. Imports no other mipview
layer."""
