"""Controls beside the views: strategies and options, custom shaders, display settings, the
layer selector."""
