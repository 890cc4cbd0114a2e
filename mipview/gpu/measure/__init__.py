"""What the device can do and how it runs: cache eviction before timed runs, the copy floor,
the sampled-read ceiling, GPU clocks."""
