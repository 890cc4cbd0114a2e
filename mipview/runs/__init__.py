"""A Run, the same for the window, the CLI and scripts: the staged run (generate, time,
analyse), the analysis per strategy, reports, baselines, traces, sweeps and the sampled
preview. Above gpu, check and io; no Qt."""
