/* string.c - freestanding memory/string helpers (xt_memset, xt_memcpy, ...) and a
 * small sort for overhead medians.
 *
 * Caveat: the loops carry XT_NOLIBCALL so gcc does not turn them back into calls to
 * memset/memcpy (which would recurse in libc_shims.c).
 * They are simple word-at-a-time loops: good enough for thrashing caches and
 * restoring inputs, not tuned like a libc.
 */
#include "xt.h"

/* Word accesses that may alias anything (callers pass u32 arrays, structs, ...). */
typedef uint64_t __attribute__((may_alias)) w64;

XT_NOLIBCALL void *xt_memset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	uint64_t w = (uint8_t)c * 0x0101010101010101ull;

	while (n && ((uintptr_t)p & 7)) {
		*p++ = (unsigned char)c;
		n--;
	}
	for (; n >= 32; n -= 32, p += 32) {
		((w64 *)p)[0] = w;
		((w64 *)p)[1] = w;
		((w64 *)p)[2] = w;
		((w64 *)p)[3] = w;
	}
	for (; n >= 8; n -= 8, p += 8)
		*(w64 *)p = w;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

XT_NOLIBCALL void *xt_memcpy(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if ((((uintptr_t)dp | (uintptr_t)sp) & 7) == 0) {
		for (; n >= 32; n -= 32, dp += 32, sp += 32) {
			uint64_t a = ((const w64 *)sp)[0], b = ((const w64 *)sp)[1];
			uint64_t c = ((const w64 *)sp)[2], e = ((const w64 *)sp)[3];
			((w64 *)dp)[0] = a;
			((w64 *)dp)[1] = b;
			((w64 *)dp)[2] = c;
			((w64 *)dp)[3] = e;
		}
		for (; n >= 8; n -= 8, dp += 8, sp += 8)
			*(w64 *)dp = *(const w64 *)sp;
	}
	while (n--)
		*dp++ = *sp++;
	return d;
}

XT_NOLIBCALL void *xt_memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp <= sp || dp >= sp + n)
		return xt_memcpy(d, s, n);
	while (n--)
		dp[n] = sp[n];
	return d;
}

int xt_memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x < *y ? -1 : 1;
	return 0;
}

size_t xt_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int xt_strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		if (!*a)
			return 0;
	}
	return 0;
}

int xt_strcmp(const char *a, const char *b)
{
	return xt_strncmp(a, b, (size_t)-1);
}

void xt_sort_u64(uint64_t *v, size_t n)
{
	static const size_t gaps[] = { 701, 301, 132, 57, 23, 10, 4, 1 };

	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		size_t gap = gaps[g];
		for (size_t i = gap; i < n; i++) {
			uint64_t x = v[i];
			size_t j = i;
			for (; j >= gap && v[j - gap] > x; j -= gap)
				v[j] = v[j - gap];
			v[j] = x;
		}
	}
}
