/* susan.c - measurer: MiBench automotive `susan` equivalent (simplified), written here.
 *
 * A grayscale image width= x height= (default 384x288, MiBench's input size) is
 * generated from seed=: a gradient with two rectangles, a disk, a triangle and +-4 of
 * noise per pixel. Three cases, one metric each, one sample = one pass over the image:
 *   susan_smooth   SUSAN noise filtering: 7x7 window, weight = spatial Gaussian
 *                  (dt = 2) x brightness similarity 100 exp(-(d/bt)^2); out = weighted
 *                  mean of the neighbours (centre kept if no neighbour is similar)
 *   susan_edges    USAN area n over the 37-pixel circular mask with brightness
 *                  similarity 100 exp(-(d/bt)^6); response 2650 - n where n <= 2650
 *   susan_corners  same area with the corner threshold 1850, kept only if the USAN
 *                  centroid is far from the nucleus (cx^2 + cy^2 > n^2 / 2), then
 *                  5x5 non-maximum suppression -> the corner list
 * bt= is the brightness threshold (default 20, as MiBench). Pixels within 3 of the
 * border (5 for corners) are not processed (smooth copies them). Each case computes
 * its output once untimed before the loop (reference checksum, FNV-1a); after the loop
 * the last output must give the same checksum (status=fail otherwise). META
 * smooth_sum/_fnv, edges/edges_sum/edges_fnv, corners/corners_fnv let the host
 * recompute them. Caveats: simplified against MiBench (no edge thinning or direction,
 * no median fallback, no corner line test); integer weights throughout.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "width", XT_U64, "[16,8192]", "384" },
	{ "height", XT_U64, "[16,8192]", "288" },
	{ "seed", XT_U64, NULL, "1" },
	{ "bt", XT_U64, "[1,255]", "20" },
	XT_KEYS_END
};

#define MAX_EDGE_NO 2650
#define MAX_CORNER_NO 1850
#define SR 3                      /* smoothing window radius (7x7) */

static int w, h;
static uint64_t seed, bt;
static unsigned char *img, *smooth;
static uint16_t *edge_r, *corner_r;
static uint32_t *corners, ncorners;
static unsigned char bp2[256], bp6[256];
static uint32_t sw[2 * SR + 1][2 * SR + 1];
static uint32_t ref_fnv[3];

/* The 37-pixel circular mask: dx range per row dy = -3..3. */
static const signed char mask_half[7] = { 1, 2, 3, 3, 3, 2, 1 };

static uint32_t fnv(uint32_t hsh, uint32_t v)
{
	return (hsh ^ v) * 16777619u;
}

static void make_image(void)
{
	struct xt_rng r;
	int rad = (w < h ? w : h) / 6;

	xt_rng_seed(&r, seed);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int v = 40 + x * 80 / w + y * 40 / h;
			int dx = x - w * 5 / 8, dy = y - h / 4;

			if (x >= w / 8 && x < w * 3 / 8 && y >= h / 6 && y < h / 2)
				v = 210;
			if (x >= w / 2 && x < w * 7 / 8 && y >= h / 2 && y < h * 5 / 6)
				v = 20;
			if (dx * dx + dy * dy < rad * rad)
				v = 130;
			if (y >= h * 7 / 12 && y < h * 11 / 12 && x >= w / 8 &&
			    x - w / 8 < y - h * 7 / 12)
				v = 240;
			v += (int)xt_rng_below(&r, 9) - 4;
			img[y * w + x] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
}

static int setup(void)
{
	size_t n;

	w = (int)xt_key_u64("width");
	h = (int)xt_key_u64("height");
	seed = xt_key_u64("seed");
	bt = xt_key_u64("bt");
	n = (size_t)w * (size_t)h;
	img = xt_alloc(n);
	smooth = xt_alloc(n);
	edge_r = xt_alloc(n * sizeof(uint16_t));
	corner_r = xt_alloc(n * sizeof(uint16_t));
	corners = xt_alloc(n * sizeof(uint32_t));
	if (!img || !smooth || !edge_r || !corner_r || !corners) {
		xt_set_reason("out of memory for the susan images");
		return XT_FAIL;
	}
	for (int k = 0; k < 256; k++) {
		double t = (double)k / (double)bt, t2 = t * t;

		bp2[k] = (unsigned char)(100.0 * xt_exp(-t2));
		bp6[k] = (unsigned char)(100.0 * xt_exp(-(t2 * t2 * t2)));
	}
	for (int dy = -SR; dy <= SR; dy++)
		for (int dx = -SR; dx <= SR; dx++)
			sw[dy + SR][dx + SR] = dx || dy ?
				(uint32_t)(100.0 * xt_exp(-(double)(dx * dx + dy * dy) / 4.0)) : 0;
	make_image();
	xt_meta("width=%d height=%d seed=%lu bt=%lu", w, h, (unsigned long)seed,
		(unsigned long)bt);
	return XT_PASS;
}

static inline unsigned absdiff(int a, int b)
{
	return (unsigned)(a > b ? a - b : b - a);
}

static void exec_smooth(void)
{
	xt_memcpy(smooth, img, (size_t)w * (size_t)h);
	for (int y = SR; y < h - SR; y++)
		for (int x = SR; x < w - SR; x++) {
			const unsigned char *p = img + y * w + x;
			int c = *p;
			uint32_t area = 0, total = 0;

			for (int dy = -SR; dy <= SR; dy++)
				for (int dx = -SR; dx <= SR; dx++) {
					int b = p[dy * w + dx];
					uint32_t t = sw[dy + SR][dx + SR] * bp2[absdiff(b, c)];
					area += t;
					total += t * (uint32_t)b;
				}
			smooth[y * w + x] = (unsigned char)(area ? total / area : (uint32_t)c);
		}
	xt_barrier();
}

/* USAN area over the 37-pixel mask (centre included, contributes 100). */
static inline unsigned usan(const unsigned char *p, const unsigned char *cp)
{
	unsigned n = 0;

	for (int dy = -3; dy <= 3; dy++) {
		int half = mask_half[dy + 3];
		const unsigned char *row = p + dy * w;
		for (int dx = -half; dx <= half; dx++)
			n += cp[absdiff(row[dx], *p)];
	}
	return n;
}

static void exec_edges(void)
{
	for (int y = 3; y < h - 3; y++)
		for (int x = 3; x < w - 3; x++) {
			unsigned n = usan(img + y * w + x, bp6);
			edge_r[y * w + x] = n <= MAX_EDGE_NO ? (uint16_t)(MAX_EDGE_NO - n) : 0;
		}
	xt_barrier();
}

static void exec_corners(void)
{
	for (int y = 3; y < h - 3; y++)
		for (int x = 3; x < w - 3; x++) {
			const unsigned char *p = img + y * w + x;
			unsigned n = usan(p, bp6);
			int cx = 0, cy = 0;

			corner_r[y * w + x] = 0;
			if (n >= MAX_CORNER_NO)
				continue;
			for (int dy = -3; dy <= 3; dy++) {
				int half = mask_half[dy + 3];
				for (int dx = -half; dx <= half; dx++) {
					int s = bp6[absdiff(p[dy * w + dx], *p)];
					cx += s * dx;
					cy += s * dy;
				}
			}
			if ((unsigned)(cx * cx + cy * cy) > n * n / 2)
				corner_r[y * w + x] = (uint16_t)(MAX_CORNER_NO - n);
		}
	ncorners = 0;
	for (int y = 5; y < h - 5; y++)
		for (int x = 5; x < w - 5; x++) {
			const uint16_t *q = corner_r + y * w + x;
			int v = *q;
			bool max = v > 0;

			for (int dy = -2; dy <= 2 && max; dy++)
				for (int dx = -2; dx <= 2 && max; dx++) {
					int o = q[dy * w + dx];
					bool before = dy < 0 || (dy == 0 && dx < 0);
					if (dx || dy)
						max = before ? v > o : v >= o;
				}
			if (max)
				corners[ncorners++] = (uint32_t)(y * w + x);
		}
	xt_barrier();
}

/* Checksums of each stage's output (FNV-1a over values; corners: position, response). */
static uint32_t sum_smooth(uint64_t *sum)
{
	uint32_t f = 2166136261u;
	size_t n = (size_t)w * (size_t)h;

	*sum = 0;
	for (size_t i = 0; i < n; i++) {
		*sum += smooth[i];
		f = fnv(f, smooth[i]);
	}
	return f;
}

static uint32_t sum_edges(uint64_t *sum, uint64_t *count)
{
	uint32_t f = 2166136261u;

	*sum = *count = 0;
	for (int y = 3; y < h - 3; y++)
		for (int x = 3; x < w - 3; x++) {
			uint16_t v = edge_r[y * w + x];
			*sum += v;
			*count += v > 0;
			f = fnv(f, v);
		}
	return f;
}

static uint32_t sum_corners(void)
{
	uint32_t f = 2166136261u;

	for (uint32_t i = 0; i < ncorners; i++)
		f = fnv(fnv(f, corners[i]), corner_r[corners[i]]);
	return f;
}

static uint32_t checksum(int stage)
{
	uint64_t a, b;

	return stage == 0 ? sum_smooth(&a) : stage == 1 ? sum_edges(&a, &b) : sum_corners();
}

static void (*const execs[3])(void) = { exec_smooth, exec_edges, exec_corners };

static int prep_stage(int stage)
{
	execs[stage]();
	ref_fnv[stage] = checksum(stage);
	return XT_PASS;
}

static int post_stage(int stage)
{
	static const char *const why[3] = {
		"susan smoothing output differs from the reference run",
		"susan edge output differs from the reference run",
		"susan corner output differs from the reference run",
	};

	if (checksum(stage) != ref_fnv[stage]) {
		xt_set_reason(why[stage]);
		return XT_FAIL;
	}
	return XT_PASS;
}

static int prep_smooth(void) { return prep_stage(0); }
static int prep_edges(void) { return prep_stage(1); }
static int prep_corners(void) { return prep_stage(2); }
static int post_smooth(void) { return post_stage(0); }
static int post_edges(void) { return post_stage(1); }
static int post_corners(void) { return post_stage(2); }

static void report(void)
{
	uint64_t ssum, esum, ecount;
	uint32_t sf = sum_smooth(&ssum), ef = sum_edges(&esum, &ecount);

	xt_meta("smooth_sum=%lu smooth_fnv=%u edges=%lu edges_sum=%lu edges_fnv=%u "
		"corners=%u corners_fnv=%u", (unsigned long)ssum, sf, (unsigned long)ecount,
		(unsigned long)esum, ef, ncorners, sum_corners());
}

static const struct xt_case cases[] = {
	{ "susan_smooth", "cycles", prep_smooth, NULL, exec_smooth, post_smooth, 20, "duration" },
	{ "susan_edges", "cycles", prep_edges, NULL, exec_edges, post_edges, 20, "duration" },
	{ "susan_corners", "cycles", prep_corners, NULL, exec_corners, post_corners, 20, "duration" },
};

const struct xt_bench xt_bench_susan = {
	.name = "susan", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = sizeof(cases) / sizeof(cases[0]), .report = report,
	.kpi = "application",
};
