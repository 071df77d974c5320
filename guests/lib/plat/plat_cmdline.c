/* plat_cmdline.c - the platform's copy of the parameter string (handed over by the
 * boot code: /chosen/bootargs, the PVH start info, multiboot) and lookups of the few keys
 * the platform itself reads: run (for fault reports), ring_gpa, ring_bytes, freq_hz,
 * llc_bytes. Everything else is parsed by guests/lib. */
#include "plat_arch.h"

static char cmdline[8192];          /* guests/lib reports lines over its own limit */

void plat_cmdline_set(const char *s, size_t max)
{
	size_t i = 0;
	if (s)
		for (; i < max && i < sizeof cmdline - 1 && s[i]; i++)
			cmdline[i] = s[i];
	cmdline[i] = 0;
}

const char *xt_cmdline(void) { return cmdline; }

/* Start of the value of key, or NULL. */
static const char *find(const char *key)
{
	const char *p = cmdline;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *k = key;
		while (*k && *p == *k)
			p++, k++;
		if (!*k && *p == '=')
			return p + 1;
		while (*p && *p != ' ')
			p++;
	}
	return NULL;
}

bool plat_param_str(const char *key, char *buf, size_t cap)
{
	const char *v = find(key);
	size_t n = 0;
	if (!v || !cap)
		return false;
	while (v[n] && v[n] != ' ' && n + 1 < cap) {
		buf[n] = v[n];
		n++;
	}
	buf[n] = 0;
	return true;
}

bool plat_param_u64(const char *key, uint64_t *out)
{
	const char *v = find(key);
	uint64_t x = 0;
	unsigned base = 10;
	if (!v || !*v || *v == ' ')
		return false;
	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		v += 2;
		if (!*v || *v == ' ')
			return false;
	}
	for (; *v && *v != ' '; v++) {
		unsigned d;
		if (*v >= '0' && *v <= '9')
			d = *v - '0';
		else if (base == 16 && (*v | 0x20) >= 'a' && (*v | 0x20) <= 'f')
			d = (*v | 0x20) - 'a' + 10;
		else
			return false;
		if (x > (UINT64_MAX - d) / base)
			return false;
		x = x * base + d;
	}
	*out = x;
	return true;
}
