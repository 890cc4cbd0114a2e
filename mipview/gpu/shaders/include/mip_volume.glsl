// mip_volume.glsl: one texel of a volume's level, exactly (mipview/check/volume_reference.py):
// the 2D rule per axis (mip_common.glsl's mipAxisTaps: 2 taps on an even side, 3 with the exact
// weights on an odd one, 1 on a side of 1), summed along x, then y, then z as the reference
// reduces them; min and max (mipExtreme) over the same taps, on stored values.
#ifndef MIP_VOLUME_GLSL
#define MIP_VOLUME_GLSL

// (i mod e.x, (i / e.x) mod e.y, i / (e.x e.y)): element i >= 0 of an x-fastest e-sized box.
ivec3 mipUnflatten3(int i, ivec3 e) {
    uint u = uint(i);
    uint row = u / uint(e.x);
    return ivec3(u % uint(e.x), row % uint(e.y), row / uint(e.y));
}

// MIP_REDUCE_VOLUME(result, reduction, p, srcSize, LOAD): result = texel p (ivec3) of the level
// made from a source of srcSize (ivec3); reduction 0 the mean (LOAD(q) returns source texel q
// decoded), else mipExtreme's (LOAD returns it as stored). Unrolled to 3 taps per axis with the
// missing ones skipped, as MIP_REDUCE_EXACT, so all 8 to 27 loads can be in flight at once.
#define MIP_REDUCE_VOLUME(result, reduction, p, srcSize, LOAD)                                \
    {                                                                                         \
        MipTaps tx_ = mipAxisTaps((p).x, (srcSize).x);                                        \
        MipTaps ty_ = mipAxisTaps((p).y, (srcSize).y);                                        \
        MipTaps tz_ = mipAxisTaps((p).z, (srcSize).z);                                        \
        vec4 acc_ = vec4(0.0);                                                                \
        vec4 ext_ = LOAD(ivec3(tx_.first, ty_.first, tz_.first));                             \
        [[unroll]] for (int k_ = 0; k_ < 3; ++k_) {                                           \
            if (k_ < tz_.count) {                                                             \
                vec4 plane_ = vec4(0.0);                                                      \
                [[unroll]] for (int j_ = 0; j_ < 3; ++j_) {                                   \
                    if (j_ < ty_.count) {                                                     \
                        vec4 row_ = vec4(0.0);                                                \
                        [[unroll]] for (int i_ = 0; i_ < 3; ++i_) {                           \
                            if (i_ < tx_.count) {                                             \
                                vec4 t_ = LOAD(ivec3(tx_.first + i_, ty_.first + j_,          \
                                                     tz_.first + k_));                        \
                                if ((reduction) == 0) {                                       \
                                    row_ += tx_.w[i_] * t_;                                   \
                                } else {                                                      \
                                    ext_ = mipExtreme((reduction), ext_, t_);                 \
                                }                                                             \
                            }                                                                 \
                        }                                                                     \
                        plane_ += ty_.w[j_] * row_;                                           \
                    }                                                                         \
                }                                                                             \
                acc_ += tz_.w[k_] * plane_;                                                   \
            }                                                                                 \
        }                                                                                     \
        result = (reduction) == 0 ? acc_ : ext_;                                              \
    }

#endif
