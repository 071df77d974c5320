/* prng.c - deterministic pseudo-random numbers (splitmix64).
 *
 * Same seed -> same sequence on every platform, so benchmark inputs are identical on
 * native, x86-64 and arm64. Not for cryptography. xt_rng_below uses the
 * multiply-shift reduction (tiny bias for huge n, irrelevant here).
 */
#include "xt.h"

void xt_rng_seed(struct xt_rng *r, uint64_t seed)
{
	r->s = seed;
}

uint64_t xt_rng_next(struct xt_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t xt_rng_below(struct xt_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)xt_rng_next(r) * n) >> 64);
}
