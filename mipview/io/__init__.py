"""Images and textures in and out: loading and saving images, texture containers (KTX2, DDS,
EXR), synthetic and bundled sample images, array layers. Above core only."""
