// mip_common.glsl: what every mipview compute shader shares.
//
// * sRGB transfer functions: sRGB images are written through UNORM storage views (no device
//   offers storage on SRGB formats), so shaders encode before imageStore and, where they read
//   through a storage view, decode after imageLoad. Sampled views of sRGB images decode in
//   hardware.
// * The exact reduction weights of the reference (../../mipview/reference.py): an even side is a
//   2:1 box, an odd side n = 2m+1 -> m takes taps 2i, 2i+1, 2i+2 weighted (m-i)/n, m/n, (i+1)/n
//   (the area each source texel covers in the output texel; nvpro vk_compute_mipmaps), a side of
//   1 stays 1.
//
// Specialization constant ids 0..9 belong to the including shader; this file uses 10..19.
#ifndef MIP_COMMON_GLSL
#define MIP_COMMON_GLSL

// True when the image is sRGB: stores must encode, storage loads must decode.
layout(constant_id = 10) const bool MIP_SRGB = false;

vec3 mipSrgbToLinear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), greaterThan(c, vec3(0.04045)));
}

vec3 mipLinearToSrgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, greaterThan(c, vec3(0.0031308)));
}

// Value to imageStore into a storage view of this image.
vec4 mipEncode(vec4 v) {
    return MIP_SRGB ? vec4(mipLinearToSrgb(v.rgb), v.a) : v;
}

// Value read by imageLoad from a storage view, made ready for averaging.
vec4 mipDecode(vec4 v) {
    return MIP_SRGB ? vec4(mipSrgbToLinear(v.rgb), v.a) : v;
}

// Taps of output index i along one axis whose source side has n texels.
struct MipTaps {
    int first;   // first source texel
    int count;   // 1, 2 or 3
    vec3 w;      // weights of texels first, first+1, first+2
};

MipTaps mipAxisTaps(int i, int n) {
    if (n <= 1) {
        return MipTaps(0, 1, vec3(1.0, 0.0, 0.0));
    }
    if ((n & 1) == 0) {
        return MipTaps(2 * i, 2, vec3(0.5, 0.5, 0.0));
    }
    int m = n >> 1;
    return MipTaps(2 * i, 3, vec3(float(m - i), float(m), float(i + 1)) / float(n));
}

// MIP_REDUCE_EXACT(result, p, srcSize, LOAD): result = the exact weighted reduction of the source
// texels under output texel p (ivec2) of a source of srcSize (ivec2). LOAD(q) must return the
// decoded (linear) value of source texel q (ivec2). A macro because GLSL has no function
// arguments; it expands to one block with up to 9 loads.
#define MIP_REDUCE_EXACT(result, p, srcSize, LOAD)                                           \
    {                                                                                        \
        MipTaps tx_ = mipAxisTaps((p).x, (srcSize).x);                                       \
        MipTaps ty_ = mipAxisTaps((p).y, (srcSize).y);                                       \
        vec4 acc_ = vec4(0.0);                                                               \
        for (int j_ = 0; j_ < ty_.count; ++j_) {                                             \
            vec4 row_ = vec4(0.0);                                                           \
            for (int i_ = 0; i_ < tx_.count; ++i_) {                                         \
                row_ += tx_.w[i_] * LOAD(ivec2(tx_.first + i_, ty_.first + j_));              \
            }                                                                                \
            acc_ += ty_.w[j_] * row_;                                                        \
        }                                                                                    \
        result = acc_;                                                                       \
    }

// Round each component to the nearest float16 (ties to even), returned as float32: a store to an
// rgba16f image is then exact whatever rounding the device's conversion uses (lavapipe's
// truncates). Normal range only: halves below 2^-14 keep float32 bits past their precision.
vec4 mipRoundToHalf(vec4 v) {
    uvec4 b = floatBitsToUint(v);
    b = (b + 0x0FFFu + ((b >> 13) & 1u)) & ~0x1FFFu;
    return uintBitsToFloat(b);
}

#endif
