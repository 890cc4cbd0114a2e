"""The command line: ``mipview [gui] | devices | run | bench | mean | sweep`` (main.py), one module
per command family and what they share. The top layer beside the window."""
