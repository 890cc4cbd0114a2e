// mip_common.glsl: what every mipview compute shader shares.
//
// * sRGB transfer functions: sRGB images are written through UNORM storage views (no device
//   offers storage on SRGB formats), so shaders encode before imageStore and, where they read
//   the UNORM view, decode after the load. Sampled views of sRGB images decode in hardware
//   (lavapipe's decode is up to 0.34 LSB off once re-encoded, so exact strategies read the
//   UNORM view and decode here). The encode is correctly rounded: the stored code is the one
//   nearest to the exact sRGB encoding of the float32 linear value (mipSrgbCodes).
// * The exact reduction weights of the reference (../../mipview/reference.py): an even side is a
//   2:1 box, an odd side n = 2m+1 -> m takes taps 2i, 2i+1, 2i+2 weighted (m-i)/n, m/n, (i+1)/n
//   (the area each source texel covers in the output texel; nvpro vk_compute_mipmaps), a side of
//   1 stays 1.
//
// Specialization constant ids 0..9 belong to the including shader; this file uses 10..19.
#ifndef MIP_COMMON_GLSL
#define MIP_COMMON_GLSL
#extension GL_EXT_control_flow_attributes : require

// True when the image is sRGB: stores must encode, storage loads must decode.
layout(constant_id = 10) const bool MIP_SRGB = false;
// An 8-bit image (UNORM, or sRGB through its UNORM view): mipEncode returns code / 255 with the
// code correctly rounded here. Vulkan lets a device convert a float to UNORM with either
// neighbour ("should" round to nearest), and an H200 converts through a 1/16-LSB grid (chain
// errors of 0.5625 LSB where a correctly rounded store stays at 0.5); code / 255 converts to
// that very code on any device.
layout(constant_id = 11) const bool MIP_UNORM8 = false;
// A 16-bit UNORM image (r16, rgba16, d16's levels): mipEncode returns code * (1 / 65535), the
// code correctly rounded here, as for 8 bits. That float32 product is within 2^-24 relative of
// code / 65535 for every code (all 65536 checked: at most 0.002 LSB from the code once scaled
// by 65535), so a device's float -> UNORM16 conversion, rounding to nearest even through a
// 1/16-LSB grid, gives that very code back: no tie is within reach.
layout(constant_id = 12) const bool MIP_UNORM16 = false;
// rgb10a2 (A2B10G10R10_UNORM_PACK32): the same with code / 1023 for colour and code / 3 for
// alpha (code * (1 / 1023) is within 2^-23 relative of code / 1023: 1e-4 LSB).
layout(constant_id = 13) const bool MIP_UNORM10 = false;
// b10g11r11 (B10G11R11_UFLOAT_PACK32): mipEncode rounds R and G to 6-bit mantissas and B to 5
// bits, to nearest, ties to even (mipRoundFloat11), as the reference does: Vulkan leaves the
// rounding of float conversions open (lavapipe truncates float16), and a value on the grid
// converts exactly on any device.
layout(constant_id = 14) const bool MIP_FLOAT11 = false;

vec3 mipSrgbToLinear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), greaterThan(c, vec3(0.04045)));
}

vec3 mipLinearToSrgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, greaterThan(c, vec3(0.0031308)));
}

// MIP_SRGB_THRESHOLDS[k]: the decision point between sRGB codes k and k+1 in linear light, i.e.
// the exact decode of (k + 0.5) / 255, rounded UP to float32 (computed in 60-digit decimal;
// tests/test_srgb_rounding.py recomputes it). Rounding up makes "x >= threshold" exact for every
// float32 x: no float32 lies between the exact value and the next float32 above it. No exact
// value is a dyadic rational, so no float32 x is a tie (were one, either code would be nearest).
// Bit patterns, because a decimal literal would go through the compiler's own rounding.
// A global, not a const: glslang gives a const array that is indexed dynamically a function-local
// copy at every place it is read, which lavapipe fills element by element at every mipEncode
// after inlining; single-pass's sRGB pipeline took LLVM 32 s to compile that way, 2.7 s with
// the one table (a private array with an initializer, as HLSL's static const arrays are).
uint MIP_SRGB_THRESHOLDS[255] = uint[](
    0x391F22B4u, 0x39EEB40Eu, 0x3A46EB61u, 0x3A8B3E5Eu, 0x3AB3070Bu, 0x3ADACFB8u, 0x3B014C33u, 0x3B153089u,
    0x3B2914DFu, 0x3B3CF936u, 0x3B50F2D1u, 0x3B65FB9Bu, 0x3B7C3403u, 0x3B89D060u, 0x3B962333u, 0x3BA314BDu,
    0x3BB0A731u, 0x3BBEDCB7u, 0x3BCDB76Du, 0x3BDD3967u, 0x3BED64AFu, 0x3BFE3B46u, 0x3C07DF91u, 0x3C10F91Bu,
    0x3C1A6B32u, 0x3C2436C8u, 0x3C2E5CC7u, 0x3C38DE1Au, 0x3C43BBA4u, 0x3C4EF648u, 0x3C5A8EE4u, 0x3C668654u,
    0x3C72DD71u, 0x3C7F950Fu, 0x3C865702u, 0x3C8D148Fu, 0x3C940396u, 0x3C9B247Cu, 0x3CA277A6u, 0x3CA9FD78u,
    0x3CB1B653u, 0x3CB9A298u, 0x3CC1C2A9u, 0x3CCA16E3u, 0x3CD29FA4u, 0x3CDB5D4Bu, 0x3CE45032u, 0x3CED78B5u,
    0x3CF6D72Eu, 0x3D0035FCu, 0x3D051BB4u, 0x3D0A1CECu, 0x3D0F39D0u, 0x3D14728Au, 0x3D19C745u, 0x3D1F382Cu,
    0x3D24C567u, 0x3D2A6F22u, 0x3D303584u, 0x3D3618B7u, 0x3D3C18E4u, 0x3D423632u, 0x3D4870CAu, 0x3D4EC8D2u,
    0x3D553E73u, 0x3D5BD1D3u, 0x3D628318u, 0x3D69526Au, 0x3D703FEEu, 0x3D774BCAu, 0x3D7E7624u, 0x3D82DF90u,
    0x3D869372u, 0x3D8A56CBu, 0x3D8E29ABu, 0x3D920C27u, 0x3D95FE4Fu, 0x3D9A0035u, 0x3D9E11ECu, 0x3DA23384u,
    0x3DA66510u, 0x3DAAA6A0u, 0x3DAEF847u, 0x3DB35A15u, 0x3DB7CC1Bu, 0x3DBC4E6Bu, 0x3DC0E114u, 0x3DC58429u,
    0x3DCA37B9u, 0x3DCEFBD6u, 0x3DD3D08Fu, 0x3DD8B5F5u, 0x3DDDAC19u, 0x3DE2B30Au, 0x3DE7CAD9u, 0x3DECF395u,
    0x3DF22D50u, 0x3DF77817u, 0x3DFCD3FCu, 0x3E012087u, 0x3E03DFAEu, 0x3E06A77Bu, 0x3E0977F6u, 0x3E0C5126u,
    0x3E0F3314u, 0x3E121DC5u, 0x3E151143u, 0x3E180D95u, 0x3E1B12C2u, 0x3E1E20D1u, 0x3E2137CBu, 0x3E2457B6u,
    0x3E278099u, 0x3E2AB27Du, 0x3E2DED68u, 0x3E313161u, 0x3E347E70u, 0x3E37D49Cu, 0x3E3B33ECu, 0x3E3E9C67u,
    0x3E420E15u, 0x3E4588FBu, 0x3E490D22u, 0x3E4C9A90u, 0x3E50314Cu, 0x3E53D15Du, 0x3E577ACAu, 0x3E5B2D9Au,
    0x3E5EE9D4u, 0x3E62AF7Eu, 0x3E667E9Fu, 0x3E6A573Eu, 0x3E6E3962u, 0x3E722511u, 0x3E761A52u, 0x3E7A192Cu,
    0x3E7E21A5u, 0x3E8119E2u, 0x3E8327C7u, 0x3E853A86u, 0x3E875222u, 0x3E896E9Du, 0x3E8B8FFCu, 0x3E8DB641u,
    0x3E8FE170u, 0x3E92118Bu, 0x3E944696u, 0x3E968095u, 0x3E98BF89u, 0x3E9B0377u, 0x3E9D4C62u, 0x3E9F9A4Cu,
    0x3EA1ED38u, 0x3EA4452Bu, 0x3EA6A226u, 0x3EA9042Eu, 0x3EAB6B44u, 0x3EADD76Du, 0x3EB048AAu, 0x3EB2BF00u,
    0x3EB53A71u, 0x3EB7BB00u, 0x3EBA40B1u, 0x3EBCCB85u, 0x3EBF5B81u, 0x3EC1F0A7u, 0x3EC48AF9u, 0x3EC72A7Cu,
    0x3EC9CF32u, 0x3ECC791Eu, 0x3ECF2842u, 0x3ED1DCA2u, 0x3ED49641u, 0x3ED75521u, 0x3EDA1946u, 0x3EDCE2B2u,
    0x3EDFB168u, 0x3EE2856Au, 0x3EE55EBDu, 0x3EE83D63u, 0x3EEB215Du, 0x3EEE0AB1u, 0x3EF0F95Fu, 0x3EF3ED6Bu,
    0x3EF6E6D8u, 0x3EF9E5A8u, 0x3EFCE9DEu, 0x3EFFF37Eu, 0x3F018145u, 0x3F030B82u, 0x3F049877u, 0x3F062827u,
    0x3F07BA92u, 0x3F094FB9u, 0x3F0AE79Fu, 0x3F0C8244u, 0x3F0E1FAAu, 0x3F0FBFD2u, 0x3F1162BEu, 0x3F13086Eu,
    0x3F14B0E4u, 0x3F165C22u, 0x3F180A29u, 0x3F19BAFAu, 0x3F1B6E96u, 0x3F1D24FFu, 0x3F1EDE36u, 0x3F209A3Cu,
    0x3F225913u, 0x3F241ABCu, 0x3F25DF38u, 0x3F27A689u, 0x3F2970AFu, 0x3F2B3DADu, 0x3F2D0D83u, 0x3F2EE032u,
    0x3F30B5BDu, 0x3F328E24u, 0x3F346968u, 0x3F36478Bu, 0x3F38288Fu, 0x3F3A0C73u, 0x3F3BF33Au, 0x3F3DDCE5u,
    0x3F3FC975u, 0x3F41B8EBu, 0x3F43AB48u, 0x3F45A08Fu, 0x3F4798BFu, 0x3F4993DBu, 0x3F4B91E3u, 0x3F4D92D8u,
    0x3F4F96BDu, 0x3F519D92u, 0x3F53A758u, 0x3F55B411u, 0x3F57C3BEu, 0x3F59D65Fu, 0x3F5BEBF7u, 0x3F5E0486u,
    0x3F60200Eu, 0x3F623E90u, 0x3F64600Cu, 0x3F668485u, 0x3F68ABFBu, 0x3F6AD670u, 0x3F6D03E5u, 0x3F6F345Au,
    0x3F7167D2u, 0x3F739E4Du, 0x3F75D7CCu, 0x3F781451u, 0x3F7A53DDu, 0x3F7C9671u, 0x3F7EDC0Eu
);

// The approximate encode (pow) is trusted to pick the code unless it lands within this many LSB of
// a half-way point; there the table decides. Vulkan's precision rules for pow (those of
// exp2(y * log2(x)): a few ulp) keep it below 1e-3 LSB here, lavapipe's measures 6e-5 LSB, so
// 1/32 LSB is a wide margin, and the table (a divergent constant read) stays off the common path.
const float MIP_SRGB_GATE = 1.0 / 32.0;

// sRGB codes (0..255, as floats) nearest to the exact encoding of linear c in [0, 1]; u is
// 255 * mipLinearToSrgb(c), the approximate encoding, within MIP_SRGB_GATE LSB of the exact one.
vec3 mipSrgbCodes(vec3 c, vec3 u) {
    vec3 k = round(u);
    for (int i = 0; i < 3; ++i) {
        if (abs(u[i] - floor(u[i]) - 0.5) < MIP_SRGB_GATE) {
            // u is near the half-way point between codes j and j+1: compare with it exactly.
            // The clamp keeps NaN (undefined int) and u = 255 inside the table.
            int j = clamp(int(floor(u[i])), 0, 254);
            k[i] = float(j) + (c[i] >= uintBitsToFloat(MIP_SRGB_THRESHOLDS[j]) ? 1.0 : 0.0);
        }
    }
    return k;
}

// The 8-bit code (0..255) of linear v in an sRGB image: colour through the sRGB curve,
// correctly rounded; alpha linear.
vec4 mipQuantise8_(vec4 v) {
    vec3 u = mipLinearToSrgb(v.rgb) * 255.0;
    return vec4(mipSrgbCodes(clamp(v.rgb, 0.0, 1.0), u), round(clamp(v.a, 0.0, 1.0) * 255.0));
}

// R, G, B rounded to the nearest B10G11R11 value, ties to even, as float32 (A: 1, the image has
// none): 6-bit mantissas for R and G, 5 for B, a 5-bit exponent of bias 15 and no sign. Below
// 2^-14 the format's denormals step by 2^-20 (R, G) and 2^-19 (B): fixed point there. Negative
// values store 0, NaN stays NaN, and from the largest finite value plus half an ulp up, +Inf
// (mipview/core/packed.py is the same rounding on the host).
vec4 mipRoundFloat11(vec4 v) {
    uvec3 drop = uvec3(17u, 17u, 18u);  // float32 mantissa bits below the format's
    uvec3 b = floatBitsToUint(v.rgb);
    uvec3 halfUlp = (uvec3(1u) << (drop - 1u)) - 1u;
    b = (b + halfUlp + ((b >> drop) & 1u)) & ~((uvec3(1u) << drop) - 1u);
    vec3 normal = uintBitsToFloat(b);
    // in steps of 2^-20, 2^-20, 2^-19: scaled by powers of 2, exactly
    vec3 denormal = roundEven(v.rgb * vec3(1048576.0, 1048576.0, 524288.0))
        * vec3(1.0 / 1048576.0, 1.0 / 1048576.0, 1.0 / 524288.0);
    vec3 c = mix(normal, denormal, lessThan(v.rgb, vec3(1.0 / 16384.0)));
    c = mix(c, vec3(uintBitsToFloat(0x7F800000u)), greaterThanEqual(c, vec3(65536.0)));
    c = mix(c, vec3(0.0), lessThan(v.rgb, vec3(0.0)));
    c = mix(c, v.rgb, isnan(v.rgb));
    return vec4(c, 1.0);
}

// Value to imageStore into a storage view of this image: for UNORM images a code / 255 (or
// / 65535, / 1023), correctly rounded (sRGB colour through the curve), so the device's float -> UNORM
// conversion cannot round it differently; b10g11r11 its grid value (mipRoundFloat11); other
// float images store v.
vec4 mipEncode(vec4 v) {
    if (MIP_SRGB) {
        return mipQuantise8_(v) * (1.0 / 255.0);
    }
    // two multiplies and a round: the store clamps (and turns NaN into 0) itself
    if (MIP_UNORM16) {
        return round(v * 65535.0) * (1.0 / 65535.0);
    }
    if (MIP_UNORM10) {
        return round(v * vec4(1023.0, 1023.0, 1023.0, 3.0))
            * vec4(1.0 / 1023.0, 1.0 / 1023.0, 1.0 / 1023.0, 1.0 / 3.0);
    }
    if (MIP_FLOAT11) {
        return mipRoundFloat11(v);
    }
    return MIP_UNORM8 ? round(v * 255.0) * (1.0 / 255.0) : v;
}

// True for a UNORM image (8 or 16 bits): values past [0, 1] are clamped by its stores.
bool mipUnorm() {
    return MIP_UNORM8 || MIP_UNORM16;
}

// The storage value of 1.0 in a UNORM image: 255 or 65535 (the code a decoded value scales to).
float mipUnormOne() {
    return MIP_UNORM16 ? 65535.0 : 255.0;
}

// The Hi-Z reductions (mipview/core/reductions.py CODES): 1 min, 2 max, 3 minmax (the min in R,
// the max in G..A: a two-channel min+max depth pyramid). They pick stored values, so they need
// no decode and no rounding. A NaN operand gives the other one: GLSL leaves it undefined, and
// tools/build_shaders.py builds mipview's modules with min and max as SPIR-V's NMin and NMax.
vec4 mipExtreme(int reduction, vec4 a, vec4 b) {
    if (reduction == 1) {
        return min(a, b);
    }
    if (reduction == 2) {
        return max(a, b);
    }
    return vec4(min(a.x, b.x), max(a.yzw, b.yzw));
}

// Value read by imageLoad from a storage view, made ready for averaging.
vec4 mipDecode(vec4 v) {
    return MIP_SRGB ? vec4(mipSrgbToLinear(v.rgb), v.a) : v;
}

// Integer % and / here run on uints only. glslang compiles int % to OpSMod, which the Vulkan
// SPIR-V environment leaves undefined when an operand is negative: lavapipe gives C's answer, an
// NVIDIA H200 folded negative filter taps to wrong texels (tests/test_shaders.py keeps OpSMod
// and OpSRem out of every shipped module).

// (i mod w, i / w): element i >= 0 of a row-major array w > 0 wide.
ivec2 mipUnflatten(int i, int w) {
    return ivec2(uint(i) % uint(w), uint(i) / uint(w));
}

// j mod n in [0, n) for any j (n > 0): the wrap edge (docs/filters.md, Edges). A negative j is
// folded by its mirror -1 - j >= 0, so the % sees no negative operand.
int mipWrapIndex(int j, int n) {
    return j >= 0 ? int(uint(j) % uint(n)) : n - 1 - int(uint(-1 - j) % uint(n));
}

// Vulkan's MIRRORED_REPEAT of j on a side of n: m = j mod 2n, then m < n ? m : 2n - 1 - m.
int mipMirrorIndex(int j, int n) {
    int m = mipWrapIndex(j, 2 * n);
    return m < n ? m : 2 * n - 1 - m;
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
// arguments; it expands to one block with up to 9 loads. The loops run to the largest count (3)
// with the missing taps skipped, not to the run-time count: unrolled, every load of the
// footprint can be in flight at once (a run-time trip count issues them one round trip at a
// time), and the sums are the same additions in the same order.
#define MIP_REDUCE_EXACT(result, p, srcSize, LOAD)                                           \
    {                                                                                        \
        MipTaps tx_ = mipAxisTaps((p).x, (srcSize).x);                                       \
        MipTaps ty_ = mipAxisTaps((p).y, (srcSize).y);                                       \
        vec4 acc_ = vec4(0.0);                                                               \
        [[unroll]] for (int j_ = 0; j_ < 3; ++j_) {                                          \
            if (j_ < ty_.count) {                                                            \
                vec4 row_ = vec4(0.0);                                                       \
                [[unroll]] for (int i_ = 0; i_ < 3; ++i_) {                                  \
                    if (i_ < tx_.count) {                                                    \
                        row_ += tx_.w[i_] * LOAD(ivec2(tx_.first + i_, ty_.first + j_));      \
                    }                                                                        \
                }                                                                            \
                acc_ += ty_.w[j_] * row_;                                                    \
            }                                                                                \
        }                                                                                    \
        result = acc_;                                                                       \
    }

// The box of a 2x2 quad a (0,0), b (1,0), c (0,1), d (1,1) of an even footprint, summed in the
// order every float32 exact path uses (the same bytes wherever a device rounds alike).
vec4 mipBox(vec4 a, vec4 b, vec4 c, vec4 d) {
    return 0.25 * ((a + b) + (c + d));
}

// A quad a (0,0), b (1,0), c (0,1), d (1,1) of a level of size n whose sides are even or 1: a
// side of 1 has no second texel, so b and d (c and d), which may hold values from past the
// level's edge, become the texel inside.
void mipQuadInside(vec4 a, inout vec4 b, inout vec4 c, inout vec4 d, ivec2 n) {
    if (n.x == 1) {
        b = a;
        d = c;
    }
    if (n.y == 1) {
        c = a;
        d = b;
    }
}

// mipBox of such a quad: a side of 1's first texel takes the whole weight (the exact weights
// 1, 0).
vec4 mipBoxSides(vec4 a, vec4 b, vec4 c, vec4 d, ivec2 n) {
    mipQuadInside(a, b, c, d, n);
    return mipBox(a, b, c, d);
}

// MIP_EXTREME_EXACT(result, reduction, p, srcSize, LOAD): mipExtreme's Hi-Z reduction over the
// whole footprint of output texel p: the taps of MIP_REDUCE_EXACT (2 per even side, 3 per odd
// side), nothing outside it, so a level is conservative at every size. LOAD(q) returns source
// texel q as stored (no mipDecode: the extremes pick stored values, and the sRGB curve is
// monotonic). From the first tap, row by row as per_level.comp takes them; unrolled to the
// largest count like MIP_REDUCE_EXACT, so every load of the footprint can be in flight at once.
#define MIP_EXTREME_EXACT(result, reduction, p, srcSize, LOAD)                               \
    {                                                                                        \
        MipTaps ex_ = mipAxisTaps((p).x, (srcSize).x);                                       \
        MipTaps ey_ = mipAxisTaps((p).y, (srcSize).y);                                       \
        vec4 em_ = LOAD(ivec2(ex_.first, ey_.first));                                        \
        [[unroll]] for (int ej_ = 0; ej_ < 3; ++ej_) {                                       \
            [[unroll]] for (int ei_ = 0; ei_ < 3; ++ei_) {                                   \
                if ((ej_ | ei_) != 0 && ej_ < ey_.count && ei_ < ex_.count) {                \
                    em_ = mipExtreme(reduction, em_,                                         \
                                     LOAD(ivec2(ex_.first + ei_, ey_.first + ej_)));         \
                }                                                                            \
            }                                                                                \
        }                                                                                    \
        result = em_;                                                                        \
    }

// MIP_REDUCE_KIND_EXACT(result, reduction, p, srcSize, LOAD): MIP_EXTREME_EXACT for reduction 1
// (min) or 2 (max), else the mean of MIP_REDUCE_EXACT; every tap unrolled either way.
#define MIP_REDUCE_KIND_EXACT(result, reduction, p, srcSize, LOAD)                           \
    if ((reduction) != 0) {                                                                  \
        MIP_EXTREME_EXACT(result, reduction, p, srcSize, LOAD)                               \
    } else {                                                                                 \
        MIP_REDUCE_EXACT(result, p, srcSize, LOAD)                                           \
    }

// mipBoxSides for the Hi-Z reductions: the extreme of such a quad (mipQuadInside: what lies past
// a side of 1 is not in the footprint).
vec4 mipExtremeSides(int reduction, vec4 a, vec4 b, vec4 c, vec4 d, ivec2 n) {
    mipQuadInside(a, b, c, d, n);
    return mipExtreme(reduction, mipExtreme(reduction, a, b), mipExtreme(reduction, c, d));
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
