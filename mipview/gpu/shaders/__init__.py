"""GLSL and SPIR-V: each shipped shader's host interface (shipped.py, checked against its GLSL),
glslc, SPIR-V reflection and the pragmas of custom shaders, and the GLSL includes
(include/) every shader shares. No Vulkan here."""
