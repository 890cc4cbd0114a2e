"""Every tolerance and slack of mipview's checks, in one place: a figure a check allows is
defined here and nowhere else, with the reason for its size.

The figures a result is judged by are derived, not chosen: :mod:`mipview.check.bounds` builds
each strategy's per-level bounds from its promise (rounding budgets per store and per
operation), and :mod:`mipview.check.verdict` applies them. What is here is the rest: the flat
figures (docs/correctness.md), the floor of relative errors, the slack for the float64 reference's own
rounding, and the coverage and normal-map thresholds of the filters.
"""

from __future__ import annotations

from mipview.core.formats import Format

# Relative error divides by max(|ref|, floor): without a floor, a texel whose reference is ~0
# (black, transparent) turns any tiny absolute difference into an enormous "relative" error.
# 1e-3 is about the smallest value a display distinguishes and one float16 ulp near 1.
RELATIVE_FLOOR = 1e-3


#: Format -> (step tolerance, chain tolerance), in the format's error unit: the flat
#: figures (docs/correctness.md), a coarse check for tests of single strategies. Results are judged by the bounds of
#: their strategy's promise (mipview.check.verdict, mipview.check.bounds), which no flat chain figure fits.
_FLAT = {
    Format.UNORM: (1.0, 2.0),
    Format.SRGB: (1.0, 2.0),
    Format.RGBA16: (1.0, 2.0),  # LSB of 16 bits, stored correctly rounded as 8-bit ones are
    # half a float16 ulp is 2^-11 ~ 4.9e-4 relative, so 1e-3 allows one rounding plus slack
    Format.F16: (1e-3, 2e-3),
    Format.F32: (1e-5, 1e-5),
    Format.RGB10A2: (1.0, 2.0),  # LSB of each channel (1/1023, alpha 1/3)
    # one ulp of B's 5-bit mantissa (2^-5): a correctly rounded store is half that
    Format.B10G11R11: (2.0**-5, 2.0**-4),
}
#: every format's figures are its element type's (r32f: f32's)
TOLERANCE: dict[Format, tuple[float, float]] = {f: _FLAT[f.element] for f in Format}

# A float format may store each level rounded toward zero (Vulkan allows it for float16, and
# lavapipe does it): one ulp of relative error per stored level, and the chain carries every
# earlier level's rounding up. So the chain bound of a float level k is max(base, k ulp).
# The ulp is for stores that go through the device's own conversion (per-level, single-pass
# and the rest): that is where a device is allowed it. npot-exact's general path, register-chain
# and volume-tiles round float16 to nearest themselves (mipRoundToHalf) and promise it; a bound
# cannot see that promise broken, so tests/test_float_rounding.py holds them to nearest bit for
# bit on lavapipe.
# 8-bit formats keep a flat 2 LSB (nvpro's figure): the error of averaged 2D levels does not
# grow like that, and the bound is the point of the check.
ULP_RELATIVE = {f: {Format.F16: 2.0**-10, Format.F32: 2.0**-23,
                    Format.B10G11R11: 2.0**-5}[f.element]
                for f in Format if f.is_float}


# The float64 reference itself carries ~1e-14 of rounding: a strategy with float intermediates
# can land exactly on 1.0 LSB of step error (its own 0.5 plus a tie below it), which must pass.
REFERENCE_SLACK = 1e-9


def chain_tolerance(fmt: Format, level: int) -> float:
    """Allowed chain error of ``level`` (storage units: LSB or relative)."""
    base = TOLERANCE[fmt][1]
    return max(base, level * ULP_RELATIVE[fmt]) if fmt.is_float else base


#: alpha=coverage: every level of at least COVERAGE_MIN_TEXELS texels keeps level 0's fraction
#: of texels with alpha >= cutoff within COVERAGE_BOUND (texconv -keepcoverage, NVTT; 1% of a
#: smaller level is less than one texel)
COVERAGE_BOUND = 0.01
COVERAGE_MIN_TEXELS = 256

#: coverage may land this far from the target count (a fraction of the level's texels) where a
#: wider gap between neighbouring alphas puts the threshold further from every texel, so a
#: rounded store does not move texels across it (the promise is 1%)
COVERAGE_SLACK = 0.005
#: a normal map's vectors are "far from unit length" when their lengths are off by more than
#: this on average (8-bit normal maps: < 0.01; uniform noise in the cube: 0.22)
NORMAL_LENGTH_SLACK = 0.1
