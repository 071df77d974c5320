/* fdt.c - a tiny flattened-device-tree (DTB) walker: enough to find RAM, the
 * command line, the UART, the GIC, the timer interrupt and PSCI.
 * Runs with the MMU off (Device memory: aligned accesses only, hence byte loads for
 * big-endian cells). Caveats: `ranges` of intermediate buses are not applied (reg
 * values are taken as physical addresses, true for QEMU virt and Xen guests, whose
 * devices sit at the root); at most 16 levels of nesting. */
#include "arm64.h"

#define FDT_MAGIC      0xd00dfeed
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE   2
#define FDT_PROP       3
#define FDT_NOP        4
#define FDT_END        9
#define MAX_DEPTH      16

struct hdr { uint32_t magic, totalsize, off_struct, off_strings, off_rsvmap, version,
	     last_comp, boot_cpu, size_strings, size_struct; };

uint32_t fdt_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)fdt_be32(p) << 32 | fdt_be32(p + 4);
}

static uint32_t field(const void *fdt, unsigned i)
{
	return fdt_be32((const uint8_t *)fdt + 4 * i);
}

bool fdt_valid(const void *fdt, uint64_t *size)
{
	if (!fdt || ((uintptr_t)fdt & 7) || field(fdt, 0) != FDT_MAGIC || field(fdt, 5) < 16)
		return false;
	*size = field(fdt, 1);
	return *size >= 40 && *size < (64u << 20);
}

static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static uint32_t align4(uint32_t n)
{
	return (n + 3) & ~3u;
}

const uint8_t *fdt_prop(const void *fdt, const struct fdt_node *n, const char *name, uint32_t *len)
{
	const char *strings = (const char *)fdt + field(fdt, 3);
	const uint8_t *p = n->props;

	while (p < n->props_end) {
		uint32_t tok = fdt_be32(p);
		if (tok == FDT_NOP) {
			p += 4;
			continue;
		}
		if (tok != FDT_PROP)
			break;
		uint32_t l = fdt_be32(p + 4), off = fdt_be32(p + 8);
		if (streq(strings + off, name)) {
			if (len)
				*len = l;
			return p + 12;
		}
		p += 12 + align4(l);
	}
	return NULL;
}

/* Is name one of the strings of the node's compatible list? */
bool fdt_compatible(const void *fdt, const struct fdt_node *n, const char *name)
{
	uint32_t len;
	const char *c = (const char *)fdt_prop(fdt, n, "compatible", &len), *end;

	if (!c)
		return false;
	for (end = c + len; c < end; ) {
		if (streq(c, name))
			return true;
		while (c < end && *c)
			c++;
		c++;
	}
	return false;
}

static uint64_t cells(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < n; i++)
		v = v << 32 | fdt_be32(p + 4 * i);
	return v;
}

bool fdt_reg(const void *fdt, const struct fdt_node *n, unsigned i, uint64_t *base, uint64_t *size)
{
	uint32_t len, ac = n->parent ? n->parent->addr_cells : 2, sc = n->parent ? n->parent->size_cells : 1;
	const uint8_t *r = fdt_prop(fdt, n, "reg", &len);
	uint32_t stride = 4 * (ac + sc);

	if (!r || !stride || ac > 2 || sc > 2 || (i + 1) * stride > len)
		return false;
	*base = cells(r + i * stride, ac);
	*size = cells(r + i * stride + 4 * ac, sc);
	return true;
}

bool fdt_memreserve(const void *fdt, unsigned i, uint64_t *base, uint64_t *size)
{
	const uint8_t *p = (const uint8_t *)fdt + field(fdt, 4) + 16 * i;
	if (p + 16 > (const uint8_t *)fdt + field(fdt, 1))
		return false;
	*base = be64(p);
	*size = be64(p + 8);
	return *base || *size;
}

static void set_path(struct fdt_node *n, const struct fdt_node *parent, const char *name)
{
	size_t i = 0;
	const char *s;

	if (parent && parent->depth > 0)
		for (s = parent->path; *s && i < sizeof n->path - 1; s++)
			n->path[i++] = *s;
	if (parent && i < sizeof n->path - 1)
		n->path[i++] = '/';
	for (s = name; *s && i < sizeof n->path - 1; s++)
		n->path[i++] = *s;
	if (!parent && i == 0)
		n->path[i++] = '/';
	n->path[i] = 0;
}

/* Reads #address-cells / #size-cells once the node's properties are known. */
static void finish_props(const void *fdt, struct fdt_node *n)
{
	uint32_t len;
	const uint8_t *v;

	n->addr_cells = 2;
	n->size_cells = 1;
	if ((v = fdt_prop(fdt, n, "#address-cells", &len)) && len == 4)
		n->addr_cells = fdt_be32(v);
	if ((v = fdt_prop(fdt, n, "#size-cells", &len)) && len == 4)
		n->size_cells = fdt_be32(v);
}

void fdt_walk(const void *fdt, void (*visit)(const struct fdt_node *n, void *ctx), void *ctx)
{
	static struct fdt_node stack[MAX_DEPTH];
	bool done[MAX_DEPTH];
	const uint8_t *p = (const uint8_t *)fdt + field(fdt, 2);
	const uint8_t *end = p + field(fdt, 9);
	int depth = -1;

	while (p < end) {
		uint32_t tok = fdt_be32(p);
		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			const char *name = (const char *)p;
			uint32_t l = 0;
			while (name[l])
				l++;
			p += align4(l + 1);
			if (depth >= 0 && depth < MAX_DEPTH && !done[depth]) {
				stack[depth].props_end = p - 4 - align4(l + 1);
				finish_props(fdt, &stack[depth]);
				visit(&stack[depth], ctx);
				done[depth] = true;
			}
			depth++;
			if (depth < MAX_DEPTH) {
				struct fdt_node *n = &stack[depth];
				n->name = name;
				n->depth = depth;
				n->parent = depth ? &stack[depth - 1] : NULL;
				n->props = p;
				n->props_end = p;
				set_path(n, n->parent, name);
				done[depth] = false;
			}
		} else if (tok == FDT_END_NODE) {
			if (depth >= 0 && depth < MAX_DEPTH && !done[depth]) {
				stack[depth].props_end = p - 4;
				finish_props(fdt, &stack[depth]);
				visit(&stack[depth], ctx);
				done[depth] = true;
			}
			depth--;
		} else if (tok == FDT_PROP) {
			p += 8 + align4(fdt_be32(p));
		} else if (tok == FDT_NOP) {
			continue;
		} else {
			break;                  /* FDT_END or garbage */
		}
	}
}
