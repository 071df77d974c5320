/* math.c - the few libm functions the benches need, in portable freestanding C.
 *
 * The guests have no libm, and gcc's builtins would call one (errno handling), so
 * these are written out: xt_sqrt, xt_cbrt (Newton from an exponent-split guess),
 * xt_exp (Cody-Waite reduction by ln 2, Taylor to degree 13), xt_sin/xt_cos (reduction
 * by pi/2 with a 33-bit split constant, Taylor kernels on [-pi/4, pi/4]), xt_atan
 * (reduction to |t| <= tan(pi/12), series to t^31) and xt_acos (2 atan(sqrt((1-x)/(1+x)))).
 * Accuracy: within a few ulp of libm for ordinary arguments (tests/integration compares
 * them with the host's libm); NaN in -> NaN out. Caveats: not correctly rounded, not
 * fast; sin/cos lose accuracy for |x| beyond ~1e6 (no Payne-Hanek reduction); results
 * may differ in the last bits between arches if the compiler contracts to FMA (arm64).
 */
#include "xt.h"

#define DBL_BIG 1.79769313486231570815e+308
#define PIO2_1 1.57079632673412561417e+00     /* first 33 bits of pi/2 */
#define PIO2_1T 6.07710050650619224932e-11    /* pi/2 - PIO2_1 */
#define LN2_HI 6.93147180369123816490e-01     /* ln 2, 32 bits: k*LN2_HI is exact */
#define LN2_LO 1.90821492927058770002e-10

static inline uint64_t bits_of(double x)
{
	union { double d; uint64_t u; } v = { .d = x };
	return v.u;
}

static inline double double_of(uint64_t u)
{
	union { uint64_t u; double d; } v = { .u = u };
	return v.d;
}

/* x * 2^e for any int e (stepwise, so huge e saturate to inf/0 as IEEE says). */
static double scale2(double x, int e)
{
	while (e > 1000) {
		x *= 0x1p1000;
		e -= 1000;
	}
	while (e < -1000) {
		x *= 0x1p-1000;
		e += 1000;
	}
	return x * double_of((uint64_t)(e + 1023) << 52);
}

/* Finite x > 0 -> m in [1, 2) and e with x = m * 2^e (subnormals included). */
static double split(double x, int *e)
{
	uint64_t b = bits_of(x);
	int adj = 0;

	if ((b >> 52) == 0) {                   /* subnormal */
		b = bits_of(x * 0x1p54);
		adj = 54;
	}
	*e = (int)(b >> 52) - 1023 - adj;
	return double_of((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
}

double xt_fabs(double x)
{
	return double_of(bits_of(x) & 0x7fffffffffffffffull);
}

double xt_sqrt(double x)
{
	double m, y;
	int e;

	if (x != x || x == 0)
		return x;                        /* NaN, +-0 */
	if (x < 0)
		return (x - x) / (x - x);        /* NaN */
	if (x > DBL_BIG)
		return x;
	m = split(x, &e);
	if (e & 1) {                             /* make e even: m in [1, 4) */
		m *= 2;
		e--;
	}
	y = 0.514286 + 0.52381 * m - 0.0380952 * m * m;   /* ~1% on [1, 4] */
	for (int i = 0; i < 5; i++)
		y = 0.5 * (y + m / y);
	return scale2(y, e / 2);
}

double xt_cbrt(double x)
{
	double m, y, s = 1;
	int e, r;

	if (x != x || x == 0 || xt_fabs(x) > DBL_BIG)
		return x;
	if (x < 0) {
		s = -1;
		x = -x;
	}
	m = split(x, &e);
	r = ((e % 3) + 3) % 3;                   /* m * 2^r in [1, 8), e - r divisible by 3 */
	m = scale2(m, r);
	e -= r;
	y = 0.740094 + 0.274537 * m - 0.014631 * m * m;   /* ~3% on [1, 8] */
	for (int i = 0; i < 6; i++)
		y = (2 * y + m / (y * y)) * (1.0 / 3.0);
	return s * scale2(y, e / 3);
}

double xt_exp(double x)
{
	double r, p;
	int k;

	if (x != x)
		return x;
	if (x > 709.782712893384)
		return x * DBL_BIG;              /* inf */
	if (x < -745.2)
		return 0;
	k = (int)(x * 1.44269504088896338700 + (x >= 0 ? 0.5 : -0.5));
	r = (x - k * LN2_HI) - k * LN2_LO;      /* |r| <= ln2/2 */
	p = 1.0 / 6227020800.0;                  /* 1/13! ... 1/0!, Horner */
	p = p * r + 1.0 / 479001600.0;
	p = p * r + 1.0 / 39916800.0;
	p = p * r + 1.0 / 3628800.0;
	p = p * r + 1.0 / 362880.0;
	p = p * r + 1.0 / 40320.0;
	p = p * r + 1.0 / 5040.0;
	p = p * r + 1.0 / 720.0;
	p = p * r + 1.0 / 120.0;
	p = p * r + 1.0 / 24.0;
	p = p * r + 1.0 / 6.0;
	p = p * r + 0.5;
	p = p * r + 1.0;
	p = p * r + 1.0;
	return scale2(p, k);
}

/* Kernels on |r| <= pi/4 (Taylor: the first omitted term is below 1e-17). */
static double k_sin(double r)
{
	double z = r * r, p = 1.0 / 355687428096000.0;   /* 1/17! */

	p = p * z - 1.0 / 1307674368000.0;
	p = p * z + 1.0 / 6227020800.0;
	p = p * z - 1.0 / 39916800.0;
	p = p * z + 1.0 / 362880.0;
	p = p * z - 1.0 / 5040.0;
	p = p * z + 1.0 / 120.0;
	p = p * z - 1.0 / 6.0;
	return r + r * z * p;
}

static double k_cos(double r)
{
	double z = r * r, p = 1.0 / 20922789888000.0;    /* 1/16! */

	p = p * z - 1.0 / 87178291200.0;
	p = p * z + 1.0 / 479001600.0;
	p = p * z - 1.0 / 3628800.0;
	p = p * z + 1.0 / 40320.0;
	p = p * z - 1.0 / 720.0;
	p = p * z + 1.0 / 24.0;
	p = p * z - 0.5;
	return 1.0 + z * p;
}

/* x = k * pi/2 + r, |r| <= ~pi/4; returns k mod 4. */
static unsigned reduce(double x, double *r)
{
	double k = x * 0.636619772367581382433 + (x >= 0 ? 0.5 : -0.5);
	int64_t ki = (int64_t)k;

	*r = (x - (double)ki * PIO2_1) - (double)ki * PIO2_1T;
	return (unsigned)ki & 3;
}

double xt_sin(double x)
{
	double r;

	if (x != x || xt_fabs(x) > DBL_BIG)
		return (x - x) / (x - x);
	switch (reduce(x, &r)) {
	case 0: return k_sin(r);
	case 1: return k_cos(r);
	case 2: return -k_sin(r);
	default: return -k_cos(r);
	}
}

double xt_cos(double x)
{
	double r;

	if (x != x || xt_fabs(x) > DBL_BIG)
		return (x - x) / (x - x);
	switch (reduce(x, &r)) {
	case 0: return k_cos(r);
	case 1: return -k_sin(r);
	case 2: return -k_cos(r);
	default: return k_sin(r);
	}
}

double xt_atan(double x)
{
	double a = xt_fabs(x), t, z, p, off = 0;
	bool inv = false;

	if (x != x)
		return x;
	if (a > 1) {
		a = 1 / a;                       /* atan(a) = pi/2 - atan(1/a) */
		inv = true;
	}
	if (a > 0.267949192431122706473) {      /* tan(pi/12): shift by pi/6 */
		a = (a * 1.73205080756887729353 - 1) / (1.73205080756887729353 + a);
		off = XT_PI / 6;
	}
	t = a;
	z = t * t;
	p = -1.0 / 31;                           /* t - t^3/3 + ... - t^31/31 */
	for (int n = 29; n >= 3; n -= 2)
		p = p * z + ((n & 2) ? -1.0 : 1.0) / n;
	t = t + t * z * p + off;
	if (inv)
		t = XT_PI / 2 - t;
	return x < 0 ? -t : t;
}

double xt_acos(double x)
{
	if (x != x || x > 1 || x < -1)
		return (x - x) / (x - x);        /* NaN */
	if (x == -1)
		return XT_PI;
	return 2 * xt_atan(xt_sqrt((1 - x) / (1 + x)));
}
