/* basicmath.c - measurer: MiBench automotive `basicmath` equivalent, written here.
 *
 * One iteration (one sample) = the whole workload, sized by scale= (default 1):
 *  - cubic roots: SolveCubic (MiBench's Cardano/trigonometric method: acos, cos, sqrt
 *    for three real roots, sqrt + cube root for one) over the grid of basicmath_small,
 *    a = 1..9, b = 10..1, c = 5..14.5 step 0.5, d = -1..-(10*scale): 18000*scale cubics;
 *  - integer square roots: MiBench usqrt (bit by bit, 16.16 fixed point result) of
 *    0, 2, 4, ... (50000*scale values) and of 1000*scale large 32-bit values starting
 *    at MiBench's 0x3fed0169 (step 0x9e3779b, wrapping);
 *  - angle conversion: 3600*scale angles in [0, 360) degrees to radians and back.
 * Results are accumulated (root count and sum, usqrt sum, angle sums) and compared
 * after every iteration (untimed) with a reference computed once before the loop; the
 * reference run also checks every root against its cubic (relative residual <= 1e-9),
 * every usqrt (a^2 <= x*2^32 < (a+1)^2) and every round trip: status=fail otherwise.
 * META roots_sum_micro= etc. let the host recompute the workload independently.
 * Caveats: libm is replaced by guests/lib/math.c (a few ulp from glibc; cbrt instead
 * of MiBench's pow(x, 1/3)); no printf of results as MiBench does; the acos argument is
 * clamped to [-1, 1] (MiBench would produce NaN on a rounding excursion).
 */
#include "xt.h"

static const struct xt_key keys[] = { { "scale", XT_U64, "[1,100000]", "1" }, XT_KEYS_END };

struct bm_result {
	uint64_t roots;          /* number of real roots found */
	double root_sum;
	uint64_t usqrt_sum;
	double rad_sum, deg_sum;
};

static uint64_t scale;
static struct bm_result ref, last;
static uint64_t checked_iterations, bad_iterations;

static int setup(void)
{
	scale = xt_key_u64("scale");
	xt_meta("cubics=%lu usqrts=%lu angles=%lu scale=%lu",
		(unsigned long)(18000 * scale), (unsigned long)(51000 * scale),
		(unsigned long)(3600 * scale), (unsigned long)scale);
	return XT_PASS;
}

/* MiBench SolveCubic: roots of a x^3 + b x^2 + c x + d; returns how many (1 or 3). */
static int solve_cubic(double a, double b, double c, double d, double x[3])
{
	double a1 = b / a, a2 = c / a, a3 = d / a;
	double q = (a1 * a1 - 3.0 * a2) / 9.0;
	double r = (2.0 * a1 * a1 * a1 - 9.0 * a1 * a2 + 27.0 * a3) / 54.0;
	double r2_q3 = r * r - q * q * q;

	if (r2_q3 <= 0) {
		double sq = xt_sqrt(q), ratio = r / xt_sqrt(q * q * q), theta;

		ratio = ratio > 1 ? 1 : ratio < -1 ? -1 : ratio;
		theta = xt_acos(ratio);
		x[0] = -2.0 * sq * xt_cos(theta / 3.0) - a1 / 3.0;
		x[1] = -2.0 * sq * xt_cos((theta + 2.0 * XT_PI) / 3.0) - a1 / 3.0;
		x[2] = -2.0 * sq * xt_cos((theta + 4.0 * XT_PI) / 3.0) - a1 / 3.0;
		return 3;
	}
	x[0] = xt_cbrt(xt_sqrt(r2_q3) + xt_fabs(r));
	x[0] += q / x[0];
	x[0] *= (r < 0.0) ? 1 : -1;
	x[0] -= a1 / 3.0;
	return 1;
}

/* MiBench usqrt with 32-bit longs: 32 steps, result = sqrt(x) in 16.16 fixed point. */
static uint32_t usqrt(uint32_t x)
{
	uint64_t a = 0, r = 0, e;

	for (int i = 0; i < 32; i++) {
		r = (r << 2) + (x >> 30);
		x <<= 2;
		a <<= 1;
		e = (a << 1) + 1;
		if (r >= e) {
			r -= e;
			a++;
		}
	}
	return (uint32_t)a;
}

static inline uint32_t usqrt_big(uint64_t i)
{
	return (uint32_t)(0x3fed0169u + i * 0x9e3779bu);
}

static inline double angle_deg(uint64_t i, uint64_t n)
{
	return (double)i * 360.0 / (double)n;
}

/* The workload. verify: also check every result (untimed reference run only);
 * inlined so the timed copy has no verification code. */
static inline __attribute__((always_inline)) bool workload(struct bm_result *res, bool verify)
{
	struct bm_result s = { 0, 0, 0, 0, 0 };
	const uint64_t nus = 50000 * scale, nbig = 1000 * scale, nang = 3600 * scale;
	bool ok = true;
	double x[3];

	for (uint64_t id = 0; id < 10 * scale; id++)
		for (int ia = 0; ia < 9; ia++)
			for (int ib = 0; ib < 10; ib++)
				for (int ic = 0; ic < 20; ic++) {
					double a = 1 + ia, b = 10 - ib, c = 5 + 0.5 * ic;
					double d = -1.0 - (double)id;
					int n = solve_cubic(a, b, c, d, x);

					s.roots += (uint64_t)n;
					for (int k = 0; k < n; k++) {
						s.root_sum += x[k];
						if (verify) {
							double v = x[k], ax = xt_fabs(v);
							double f = ((a * v + b) * v + c) * v + d;
							double m = ((a * ax + xt_fabs(b)) * ax +
								    xt_fabs(c)) * ax + xt_fabs(d);
							ok &= xt_fabs(f) <= 1e-9 * m;
						}
					}
				}
	for (uint64_t i = 0; i < nus + nbig; i++) {
		uint32_t v = i < nus ? (uint32_t)(2 * i) : usqrt_big(i - nus);
		uint32_t q = usqrt(v);

		s.usqrt_sum += q;
		if (verify) {
			unsigned __int128 sq = (unsigned __int128)q * q, val =
				(unsigned __int128)v << 32;
			ok &= sq <= val && val < sq + 2 * (unsigned __int128)q + 1;
		}
	}
	for (uint64_t i = 0; i < nang; i++) {
		double deg = angle_deg(i, nang);
		double rad = deg * XT_PI / 180.0;
		double back = rad * 180.0 / XT_PI;

		s.rad_sum += rad;
		s.deg_sum += back;
		if (verify)
			ok &= xt_fabs(back - deg) <= 1e-12 * (deg + 1);
	}
	*res = s;
	return ok;
}

static bool same(const struct bm_result *a, const struct bm_result *b)
{
	return a->roots == b->roots && a->root_sum == b->root_sum &&
	       a->usqrt_sum == b->usqrt_sum && a->rad_sum == b->rad_sum &&
	       a->deg_sum == b->deg_sum;
}

static int prep(void)
{
	checked_iterations = bad_iterations = 0;
	if (!workload(&ref, true)) {
		xt_set_reason("basicmath reference run: a root, usqrt or angle is wrong");
		return XT_FAIL;
	}
	last = ref;
	return XT_PASS;
}

/* Untimed: check the previous iteration's results. */
static void reset(void)
{
	checked_iterations++;
	bad_iterations += !same(&last, &ref);
	last.roots = 0;
}

static void exec(void)
{
	workload(&last, false);
	xt_barrier();
}

static int post(void)
{
	reset();
	if (bad_iterations) {
		xt_set_reason("basicmath results differ from the reference run");
		return XT_FAIL;
	}
	return XT_PASS;
}

static long micro(double v)
{
	return (long)(v * 1e6 + (v >= 0 ? 0.5 : -0.5));
}

static void report(void)
{
	xt_meta("roots=%lu roots_sum_micro=%ld usqrt_sum=%lu rad_sum_micro=%ld "
		"deg_sum_micro=%ld", (unsigned long)ref.roots, micro(ref.root_sum),
		(unsigned long)ref.usqrt_sum, micro(ref.rad_sum), micro(ref.deg_sum));
}

static const struct xt_case cases[] = {
	{ "basicmath", "cycles", prep, reset, exec, post, 50, "duration" },
};

const struct xt_bench xt_bench_basicmath = {
	.name = "basicmath", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .report = report,
	.kpi = "application",
};
