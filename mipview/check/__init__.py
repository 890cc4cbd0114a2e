"""Is it correct? The exact float64 references (box and filters), per-texel errors, the
bounds each kind of strategy promises, every tolerance (tolerances.py), and the one verdict.
Above core and io; never imports gpu, run, cli or ui."""
