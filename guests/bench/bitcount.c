/* bitcount.c - measurer: MiBench automotive `bitcount` equivalent, written here.
 *
 * Five ways to count the set bits of a 32-bit word, one case (metric) each:
 *   bitcount_nibble  16-entry table, 8 lookups (MiBench ntbl_bitcount)
 *   bitcount_byte    256-entry table, 4 lookups (MiBench BW/AR_btbl_bitcount)
 *   bitcount_shift   shift and add one bit at a time until the word is 0 (bit_shifter)
 *   bitcount_kernighan  x &= x - 1 until 0 (MiBench bit_count)
 *   bitcount_swar    parallel adds of 1, 2, 4, 8, 16-bit fields (MiBench bitcount)
 * One sample = one method over count= inputs (default 75000, MiBench's small run):
 * x_0 = seed (default 0x12345678), x_{j+1} = x_j + 0x9e3779b9 mod 2^32 (a Weyl
 * sequence: every bit position varies, unlike MiBench's seed += 13). Each method is a
 * noinline function called once per input (MiBench calls through a pointer table).
 * After each case its total is compared with a reference counted bit by bit before
 * the loop (status=fail if a method disagrees); META total= lets the host check it.
 * Caveats: an empty asm in the shift and Kernighan loops stops gcc from turning them
 * into a popcount instruction or libgcc call; 32-bit inputs as MiBench on 32-bit CPUs.
 */
#include "xt.h"

static const struct xt_key keys[] = {
	{ "count", XT_U64, "[1,4294967296]", "75000" },
	{ "seed", XT_U64, "[0,4294967295]", "0x12345678" },
	XT_KEYS_END
};

#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
static const unsigned char byte_bits[256] = { B6(0), B6(1), B6(1), B6(2) };
static const unsigned char nibble_bits[16] = { B2(0), B2(1), B2(1), B2(2) };

#define STEP 0x9e3779b9u
#define NMETHODS 5

static uint64_t count, reference, totals[NMETHODS];
static uint32_t seed;

static int setup(void)
{
	uint32_t x;

	count = xt_key_u64("count");
	seed = (uint32_t)xt_key_u64("seed");
	reference = 0;
	x = seed;
	for (uint64_t j = 0; j < count; j++, x += STEP)
		for (int b = 0; b < 32; b++)
			reference += (x >> b) & 1;
	xt_meta("count=%lu seed=%lu total=%lu", (unsigned long)count, (unsigned long)seed,
		(unsigned long)reference);
	return XT_PASS;
}

static __attribute__((noinline)) unsigned bc_nibble(uint32_t x)
{
	return nibble_bits[x & 15] + nibble_bits[(x >> 4) & 15] +
	       nibble_bits[(x >> 8) & 15] + nibble_bits[(x >> 12) & 15] +
	       nibble_bits[(x >> 16) & 15] + nibble_bits[(x >> 20) & 15] +
	       nibble_bits[(x >> 24) & 15] + nibble_bits[x >> 28];
}

static __attribute__((noinline)) unsigned bc_byte(uint32_t x)
{
	return byte_bits[x & 255] + byte_bits[(x >> 8) & 255] +
	       byte_bits[(x >> 16) & 255] + byte_bits[x >> 24];
}

static __attribute__((noinline)) unsigned bc_shift(uint32_t x)
{
	unsigned n = 0;

	for (; x; x >>= 1) {
		n += x & 1;
		__asm__("" : "+r"(x));
	}
	return n;
}

static __attribute__((noinline)) unsigned bc_kernighan(uint32_t x)
{
	unsigned n = 0;

	for (; x; n++) {
		x &= x - 1;
		__asm__("" : "+r"(x));
	}
	return n;
}

static __attribute__((noinline)) unsigned bc_swar(uint32_t x)
{
	x = ((x & 0xaaaaaaaau) >> 1) + (x & 0x55555555u);
	x = ((x & 0xccccccccu) >> 2) + (x & 0x33333333u);
	x = ((x & 0xf0f0f0f0u) >> 4) + (x & 0x0f0f0f0fu);
	x = ((x & 0xff00ff00u) >> 8) + (x & 0x00ff00ffu);
	x = ((x & 0xffff0000u) >> 16) + (x & 0x0000ffffu);
	return x;
}

/* One loop per method, so each is a direct (noinline) call in its own timed body. */
#define BC_CASE(idx, fn)                                                      \
	static void exec_##fn(void)                                           \
	{                                                                     \
		uint64_t n = 0;                                               \
		uint32_t x = seed;                                            \
		for (uint64_t j = 0; j < count; j++, x += STEP)               \
			n += fn(x);                                           \
		totals[idx] = n;                                              \
		xt_barrier();                                                 \
	}                                                                     \
	static int post_##fn(void)                                            \
	{                                                                     \
		if (totals[idx] != reference) {                               \
			xt_set_reason("bitcount method " #fn                  \
				      " disagrees with the reference count"); \
			return XT_FAIL;                                       \
		}                                                             \
		return XT_PASS;                                               \
	}

BC_CASE(0, bc_nibble)
BC_CASE(1, bc_byte)
BC_CASE(2, bc_shift)
BC_CASE(3, bc_kernighan)
BC_CASE(4, bc_swar)

static const struct xt_case cases[NMETHODS] = {
	{ "bitcount_nibble", "cycles", NULL, NULL, exec_bc_nibble, post_bc_nibble, 50, "duration" },
	{ "bitcount_byte", "cycles", NULL, NULL, exec_bc_byte, post_bc_byte, 50, "duration" },
	{ "bitcount_shift", "cycles", NULL, NULL, exec_bc_shift, post_bc_shift, 50, "duration" },
	{ "bitcount_kernighan", "cycles", NULL, NULL, exec_bc_kernighan, post_bc_kernighan, 50, "duration" },
	{ "bitcount_swar", "cycles", NULL, NULL, exec_bc_swar, post_bc_swar, 50, "duration" },
};

const struct xt_bench xt_bench_bitcount = {
	.name = "bitcount", .role = "measurer", .keys = keys, .setup = setup,
	.cases = cases, .ncases = NMETHODS,
	.kpi = "application",
};
