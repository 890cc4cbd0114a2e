"""Development tools outside the installed package: building the shipped SPIR-V, the window's
timing harness, the screenshots, GPU bench scripts, and a comparison of two trees' outputs."""
