#version 460
// Experiment: a conservative Hi-Z min in ONE dispatch, with no hand-off between tiles.
// Each work group owns a TX x TY block of level K and makes it from level 0 alone: it computes
// every level below K over the block's whole footprint (three texels on every odd side, so
// neighbouring groups' footprints overlap and the overlap is computed twice) and stores only the
// texels it owns. The last group to arrive makes levels K+1.. from level K (scratch buffer).
//   mipview bench --size 1920x1080 --format r32f --synthetic depth \
//     --strategies shader:docs/bench/hiz-bands/hiz_bands.comp,npot-exact:reduction=min
#pragma mipview kind whole-chain
#pragma mipview tile 64 256
#pragma mipview formats r32f
#pragma mipview reduction min
#pragma mipview robust off
#extension GL_GOOGLE_include_directive : require
#define MIP_CHAIN_SCRATCH
#include "mip_chain.glsl"

#define TILE_W 64
#define TILE_H 256
#define K 6                 // levels made inside a group; TILE >> K texels of level K per group
#define TX (TILE_W >> K)
#define TY (TILE_H >> K)
#define NT 256
// level 2 of a tile's footprint (odd sides add at most 16 texels a side there) and the tail's
// level K (64x64 at 4096^2); B: level 3 and the tail's level K+1
#define SHARED_A max((TILE_W / 4 + 16) * (TILE_H / 4 + 16), 4096)
#define SHARED_B max((TILE_W / 8 + 8) * (TILE_H / 8 + 8), 1024)
#define ITERS ((SHARED_A + NT - 1) / NT)

layout(local_size_x = NT, local_size_y = 1, local_size_z = 1) in;

shared float S[SHARED_A + SHARED_B];

int layer;
ivec2 n[16];     // level sizes
ivec2 lo[16];    // first texel of the group's footprint at each level
ivec2 hi[16];    // last texel (inclusive)
ivec2 ownHi[16]; // last texel the group stores (owned range: lo .. ownHi)

// Level k from level k-1, over lo[k] .. hi[k]; src and dst are offsets into S.
void reduceShared(int k, int src, int dst, bool store) {
    ivec2 sw = hi[k - 1] - lo[k - 1] + 1;
    ivec2 dw = hi[k] - lo[k] + 1;
    ivec2 odd = n[k - 1] & 1;
    ivec2 last = n[k - 1] - 1;
    bool even = all(equal(odd, ivec2(0)));
    // a constant trip count and a break: lavapipe loses the stores of a loop whose count
    // varies by invocation once a barrier follows it (docs/bench/hiz-strips)
    for (int i = 0; i < ITERS; ++i) {
        int t = int(gl_LocalInvocationIndex) + i * NT;
        if (t >= dw.x * dw.y) {
            break;
        }
        ivec2 d = ivec2(t % dw.x, t / dw.x);
        ivec2 p = lo[k] + d;
        ivec2 r0 = 2 * p - lo[k - 1];
#define SH(cx, cy) S[src + (cy) * sw.x + (cx)]
        float v;
        if (even) {
            v = min(min(SH(r0.x, r0.y), SH(r0.x + 1, r0.y)),
                    min(SH(r0.x, r0.y + 1), SH(r0.x + 1, r0.y + 1)));
        } else {
            // three taps a side where the side is odd; the clamp repeats a tap (harmless for
            // min) on even sides and on 1-texel ones
            ivec2 r2 = min(2 * p + 1 + odd, last) - lo[k - 1];
            ivec2 r1 = min(r0 + 1, r2);
            v = min(min(min(SH(r0.x, r0.y), SH(r1.x, r0.y)), min(SH(r2.x, r0.y), SH(r0.x, r1.y))),
                    min(min(SH(r1.x, r1.y), SH(r2.x, r1.y)),
                        min(min(SH(r0.x, r2.y), SH(r1.x, r2.y)), SH(r2.x, r2.y))));
        }
#undef SH
        S[dst + t] = v;
        if (store && all(lessThanEqual(p, ownHi[k]))) {
            mipChainStore(k, ivec3(p, layer), vec4(v, 0.0, 0.0, 1.0));
            if (k == K) {
                mipScratch[mipChainScratchIndex(K, layer, p)] = vec4(v);
            }
        }
    }
    mipChainBarrier();
}

// Texel q of level 1 from level 0: one gather, and the third taps of odd sides
float level1(ivec2 q) {
    ivec2 c = 2 * q;
    vec4 r = textureGather(mipSrc, vec3(vec2(c + 1) / vec2(n[0]), float(layer)), 0);
    float v = min(min(r.x, r.y), min(r.z, r.w));
    ivec2 e = min(c + 2, n[0] - 1);
    if ((n[0].x & 1) == 1) {
        v = min(v, min(texelFetch(mipSrc, ivec3(e.x, c.y, layer), 0).r,
                       texelFetch(mipSrc, ivec3(e.x, min(c.y + 1, n[0].y - 1), layer), 0).r));
    }
    if ((n[0].y & 1) == 1) {
        v = min(v, min(texelFetch(mipSrc, ivec3(c.x, e.y, layer), 0).r,
                       texelFetch(mipSrc, ivec3(min(c.x + 1, n[0].x - 1), e.y, layer), 0).r));
        if ((n[0].x & 1) == 1) {
            v = min(v, texelFetch(mipSrc, ivec3(e.x, e.y, layer), 0).r);
        }
    }
    return v;
}

void main() {
    layer = int(gl_WorkGroupID.z);
    for (int k = 0; k < 16; ++k) {
        n[k] = mipChainSize(k);
    }
    ivec2 g = ivec2(gl_WorkGroupID.xy);
    ivec2 a = g * ivec2(TX, TY);
    bool working = pc.levels > K && all(lessThan(a, n[K]));
    if (working) {
        ivec2 b = min(a + ivec2(TX, TY), n[K]) - 1;
        bvec2 isLast = greaterThanEqual(a + ivec2(TX, TY), n[K]);
        lo[K] = a;
        hi[K] = b;
        ownHi[K] = b;
        for (int k = K; k >= 1; --k) {
            lo[k - 1] = min(2 * lo[k], n[k - 1] - 1);
            hi[k - 1] = min(2 * hi[k] + 1 + (n[k - 1] & 1), n[k - 1] - 1);
            ivec2 own = ((b + 1) << (K - k + 1)) - 1;
            ownHi[k - 1] = mix(own, n[k - 1] - 1, isLast);
        }
        // levels 1 and 2 from level 0: a level-2 texel from its 2x2 (3 on odd sides) level-1
        // texels, each one gather (and the extra taps of odd sides of level 0)
        ivec2 dw = hi[2] - lo[2] + 1;
        ivec2 taps = 2 + (n[1] & 1);
        for (int i = 0; i < ITERS; ++i) {
            int t = int(gl_LocalInvocationIndex) + i * NT;
            if (t >= dw.x * dw.y) {
                break;
            }
            ivec2 p = lo[2] + ivec2(t % dw.x, t / dw.x);
            bvec2 lastOf2 = equal(p, n[2] - 1);
            float v = uintBitsToFloat(0x7f800000u);
            for (int dy = 0; dy < 3; ++dy) {
                for (int dx = 0; dx < 3; ++dx) {
                    if (dx < taps.x && dy < taps.y) {
                        ivec2 q = min(2 * p + ivec2(dx, dy), n[1] - 1);
                        float v1 = level1(q);
                        v = min(v, v1);
                        // a level-1 texel is stored by the level-2 texel whose 2x2 holds it
                        // (the third tap of the last one too), once, and only if owned
                        bool first = (dx < 2 || lastOf2.x) && (dy < 2 || lastOf2.y);
                        if (first && all(lessThanEqual(q, ownHi[1]))) {
                            mipChainStore(1, ivec3(q, layer), vec4(v1, 0.0, 0.0, 1.0));
                        }
                    }
                }
            }
            S[t] = v;
            if (all(lessThanEqual(p, ownHi[2]))) {
                mipChainStore(2, ivec3(p, layer), vec4(v, 0.0, 0.0, 1.0));
            }
        }
        mipChainBarrier();
        // unrolled: lavapipe loses stores made in a loop around a barrier (docs/bench/hiz-strips)
        reduceShared(3, 0, SHARED_A, true);
        reduceShared(4, SHARED_A, 0, true);
        reduceShared(5, 0, SHARED_A, true);
        reduceShared(6, SHARED_A, 0, true);
    }
    if (!mipChainLastGroup(0u) || pc.levels <= K + 1) {
        return;
    }
    // the tail: levels K+1.. from level K, the whole level in this group
    int count = n[K].x * n[K].y;
    for (int i = 0; i < ITERS; ++i) {
        int t = int(gl_LocalInvocationIndex) + i * NT;
        if (t >= count) {
            break;
        }
        S[t] = mipScratch[mipChainScratchIndex(K, layer, ivec2(t % n[K].x, t / n[K].x))].x;
    }
    for (int k = K; k < pc.levels; ++k) {
        lo[k] = ivec2(0);
        hi[k] = n[k] - 1;
        ownHi[k] = n[k] - 1;
    }
    mipChainBarrier();
#define TAIL_(k, src, dst) if (pc.levels > k) { reduceShared(k, src, dst, true); }
    TAIL_(7, 0, SHARED_A) TAIL_(8, SHARED_A, 0) TAIL_(9, 0, SHARED_A) TAIL_(10, SHARED_A, 0)
    TAIL_(11, 0, SHARED_A) TAIL_(12, SHARED_A, 0) TAIL_(13, 0, SHARED_A) TAIL_(14, SHARED_A, 0)
    TAIL_(15, 0, SHARED_A)
}
