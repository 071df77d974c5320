/* cmdline.c - parameters: "key=value key=value ..." from xt_cmdline().
 *
 * Values are looked up by key; numbers are decimal (or 0x hex), durations may be
 * fractional, sizes are expressions resolved against the detected cache topology
 * (`1171k`, `4m`, `llc*1.5`, `l2*2`, `l1/2`). Every key is declared (struct xt_key:
 * type, range, default): the common keys here, a bench's in its table. Malformed
 * tokens, duplicates, unknown keys and values outside their declaration all end the
 * run with XT ERROR param=KEY + XT END status=badparam (exit 2). Caveats: at most
 * XT_MAX_PARAMS tokens and XT_CMDLINE_MAX bytes; a first token starting with '/' (a
 * kernel path some loaders prepend) is ignored.
 */
#include "xt.h"

#define XT_MAX_PARAMS 64
#define XT_CMDLINE_MAX 4096

static char buf[XT_CMDLINE_MAX];
static struct { const char *k, *v; } kv[XT_MAX_PARAMS];
static unsigned nkv;

const struct xt_key xt_common_keys[] = {
	{ "bench", XT_TEXT, NULL, NULL },
	{ "run", XT_TEXT, NULL, "0" },
	{ "role", XT_WORD, "measurer|stressor", NULL },       /* default: the bench's */
	{ "iterations", XT_U64, NULL, NULL },                  /* default: the case's */
	{ "duration_s", XT_DOUBLE, "[0,1e7]", "0" },
	{ "warmup", XT_U64, NULL, "0" },
	{ "ring", XT_TEXT, NULL, NULL },
	{ "freq_hz", XT_U64, NULL, NULL },                     /* default: measured */
	{ "l1_bytes", XT_SIZE, "[1,)", NULL },                 /* defaults: detected */
	{ "l2_bytes", XT_SIZE, "[1,)", NULL },
	{ "l3_bytes", XT_SIZE, "[1,)", NULL },
	{ "llc_bytes", XT_SIZE, "[1,)", NULL },
	{ "shared_bytes", XT_SIZE, "[1,)", NULL },             /* only given: xtalk host caches */
	{ "buffer_slots", XT_U64, NULL, NULL },
	{ "vcpus", XT_U64, "[1,16]", "1" },                    /* vCPUs the bench runs on: XT_MAX_CPUS */
	{ "vcpu_cpus", XT_TEXT, NULL, NULL },  /* native: the CPU of each vCPU thread, "0,1" */
	{ "ring_gpa", XT_U64, NULL, NULL },  /* platform keys: where the host put the ring */
	{ "ring_bytes", XT_U64, NULL, NULL },
	XT_KEYS_END
};
const char *const xt_type_names[] = { "u64", "double", "size", "bool", "word", "text" };
static const char *const type_nouns[] = {
	"an unsigned integer", "a number", "a size", "0, 1, false or true", "one of", "text"
};
static const struct xt_key *declared;          /* the bench's keys (xt_params_check) */

static const char *find(const char *key)
{
	for (unsigned i = 0; i < nkv; i++)
		if (!xt_strcmp(kv[i].k, key))
			return kv[i].v;
	return NULL;
}

const char *xt_run_id(void)
{
	const char *r = find("run");
	return r && *r ? r : "0";
}

void xt_badparam(const char *key, const char *msg)
{
	xt_error(key, msg);
	xt_end(XT_BADPARAM, false, NULL);
}

void xt_params_init(const char *cmdline)
{
	const char *bad = NULL, *why = NULL;
	size_t n = xt_strlen(cmdline);
	char *p = buf;

	if (n >= sizeof(buf)) {
		why = "command line too long";
		bad = "cmdline";
		n = 0;
	}
	xt_memcpy(buf, cmdline, n);
	buf[n] = '\0';
	nkv = 0;
	for (bool first = true;; first = false) {
		char *tok, *eq;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
		for (eq = tok; *eq && *eq != '='; eq++)
			;
		if (!*eq || eq == tok) {
			if (first && *tok == '/')
				continue;
			if (!bad) {
				bad = tok;
				why = "expected key=value";
			}
			continue;
		}
		*eq = '\0';
		if (find(tok) && !bad) {
			bad = tok;
			why = "given twice";
		} else if (nkv == XT_MAX_PARAMS) {
			if (!bad) {
				bad = tok;
				why = "too many parameters";
			}
		} else {
			kv[nkv].k = tok;
			kv[nkv++].v = eq + 1;
		}
	}
	if (bad)
		xt_badparam(bad, why);
}

bool xt_param_has(const char *key)
{
	return find(key) != NULL;
}

const char *xt_param_str(const char *key, const char *dflt)
{
	const char *v = find(key);
	return v ? v : dflt;
}

/* Parses an unsigned integer; returns false on junk or overflow. */
static bool parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* Parses a decimal floating number at *sp, advancing it; false if none. */
static bool parse_double(const char **sp, double *out)
{
	const char *s = *sp;
	double v = 0, scale = 1;
	bool neg = false, digits = false;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++, digits = true)
		v = v * 10 + (*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits = true)
			v += (*s - '0') * (scale /= 10);
	if (!digits)
		return false;
	if ((*s == 'e' || *s == 'E') && ((s[1] >= '0' && s[1] <= '9') ||
	    ((s[1] == '-' || s[1] == '+') && s[2] >= '0' && s[2] <= '9'))) {
		int e = 0, sign = 1;
		s++;
		if (*s == '-' || *s == '+')
			sign = *s++ == '-' ? -1 : 1;
		for (; *s >= '0' && *s <= '9' && e < 400; s++)
			e = e * 10 + (*s - '0');
		for (; e > 0; e--)
			v = sign > 0 ? v * 10 : v / 10;
	}
	*out = neg ? -v : v;
	*sp = s;
	return true;
}

uint64_t xt_param_u64(const char *key, uint64_t dflt)
{
	const char *v = find(key);
	uint64_t out;

	if (!v)
		return dflt;
	if (!parse_u64(v, &out))
		xt_badparam(key, "expected an unsigned integer");
	return out;
}

double xt_param_double(const char *key, double dflt)
{
	const char *v = find(key);
	double out;

	if (!v)
		return dflt;
	if (!parse_double(&v, &out) || *v)
		xt_badparam(key, "expected a number");
	return out;
}

/* "123", "1.5m", "4k", "2g" -> bytes; NULL on success, else the problem. */
static const char *parse_bytes(const char **sp, double *out)
{
	double v;

	if (!parse_double(sp, &v) || v < 0)
		return "expected a size such as 4096, 1171k, 4m or llc*1.5";
	switch (**sp) {
	case 'k': case 'K': v *= 1024.0; (*sp)++; break;
	case 'm': case 'M': v *= 1024.0 * 1024; (*sp)++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; (*sp)++; break;
	default: break;
	}
	if (**sp == 'b' || **sp == 'B')
		(*sp)++;
	*out = v;
	return NULL;
}

uint64_t xt_cache_size(int level)
{
	static const char *const keys[] = { "llc_bytes", "l1_bytes", "l2_bytes", "l3_bytes", "shared_bytes" };
	const char *key = keys[level >= 0 && level <= XT_SHARED ? level : 0];
	const char *v = find(key);
	double d;

	if (!v)
		return level == XT_SHARED ? 0 : xt_cache_bytes(level);
	if (parse_bytes(&v, &d) || *v || d < 1)
		xt_badparam(key, "expected a size such as 32m");
	return (uint64_t)d;
}

static bool starts(const char *s, const char *word)
{
	return !xt_strncmp(s, word, xt_strlen(word));
}

/* The bytes of size expression s, the value of key. */
static uint64_t size_of(const char *key, const char *s)
{
	const char *err;
	double v, f;

	if (starts(s, "shared")) {
		v = (double)xt_cache_size(XT_SHARED);
		s += 6;
		if (v == 0)
			xt_badparam(key, "no shared cache level known: run xtalk host caches, or give a size in bytes");
	} else if (starts(s, "llc") || starts(s, "l1") || starts(s, "l2") || starts(s, "l3")) {
		int level = starts(s, "llc") ? 0 : s[1] - '0';
		s += level ? 2 : 3;
		v = (double)xt_cache_size(level);
		if (v == 0)
			xt_badparam(key, "cache size unknown: give a size in bytes or pass llc_bytes or l2_bytes");
	} else if ((err = parse_bytes(&s, &v)) != NULL) {
		xt_badparam(key, err);
	}
	if (*s == '*' || *s == '/') {
		char op = *s++;
		if (!parse_double(&s, &f) || f <= 0)
			xt_badparam(key, "expected a positive factor after * or /");
		v = op == '*' ? v * f : v / f;
	}
	if (*s)
		xt_badparam(key, "trailing characters in size");
	if (v < 1 || v > 281474976710656.0)
		xt_badparam(key, "size out of range");
	return (uint64_t)v;
}

uint64_t xt_param_size(const char *key, const char *dflt_expr)
{
	return size_of(key, xt_param_str(key, dflt_expr));
}

/* A range end at *sp (a size's may carry k/m/g), advancing *sp; false: none (unbounded). */
static bool range_end(const char **sp, bool size, double *out)
{
	if (**sp == ',' || **sp == ']' || **sp == ')')
		return false;
	return size ? parse_bytes(sp, out) == NULL : parse_double(sp, out);
}

/* Whether v lies in the interval r ("[1,100000]", "(0,1e7]", "[1,)"). */
static bool in_range(double v, const char *r, bool size)
{
	const char *s = r + 1;
	double end;

	if (range_end(&s, size, &end) && (r[0] == '[' ? v < end : v <= end))
		return false;
	s++;                                        /* the ',' */
	return !range_end(&s, size, &end) || (*s == ']' ? v <= end : v < end);
}

/* Whether v is one of the '|'-separated words of words. */
static bool is_word(const char *v, const char *words)
{
	size_t n = xt_strlen(v);

	for (const char *w = words; *w;) {
		size_t len = 0;
		while (w[len] && w[len] != '|')
			len++;
		if (len == n && !xt_strncmp(w, v, n))
			return true;
		w += len + (w[len] == '|');
	}
	return false;
}

union xt_val {
	uint64_t u;
	double d;
	const char *s;
};

/* Text v of key k, checked against k's type and range (badparam if it does not fit). */
static union xt_val check_value(const struct xt_key *k, const char *v)
{
	static char msg[160];
	union xt_val out = { .s = v };
	const char *end = v;
	double x = 0;

	switch (k->type) {
	case XT_U64:
		if (!parse_u64(v, &out.u))
			goto bad;
		x = (double)out.u;
		break;
	case XT_DOUBLE:
		if (!parse_double(&end, &out.d) || *end)
			goto bad;
		x = out.d;
		break;
	case XT_SIZE:
		out.u = size_of(k->name, v);
		x = (double)out.u;
		break;
	case XT_BOOL:
		if (xt_strcmp(v, "0") && xt_strcmp(v, "1") && xt_strcmp(v, "false") &&
		    xt_strcmp(v, "true"))
			goto bad;
		out.u = v[0] == '1' || v[0] == 't';
		return out;
	case XT_WORD:
		if (!is_word(v, k->range))
			goto bad;
		return out;
	case XT_TEXT:
		return out;
	}
	if (!k->range || in_range(x, k->range, k->type == XT_SIZE))
		return out;
bad:
	xt_snprintf(msg, sizeof(msg), "expected %s%s%s", type_nouns[k->type],
		    k->range ? (k->type == XT_WORD ? " " : " in ") : "", k->range ? k->range : "");
	xt_badparam(k->name, msg);
}

static const struct xt_key *lookup(const struct xt_key *keys, const char *key)
{
	for (; keys && keys->name; keys++)
		if (!xt_strcmp(keys->name, key))
			return keys;
	return NULL;
}

static const struct xt_key *declaration(const char *key)
{
	const struct xt_key *k = lookup(declared, key);

	return k ? k : lookup(xt_common_keys, key);
}

void xt_params_check(const struct xt_key *keys)
{
	declared = keys;
	for (unsigned i = 0; i < nkv; i++) {
		const struct xt_key *k = declaration(kv[i].k);
		if (!k)
			xt_badparam(kv[i].k, "unknown parameter");
		(void)check_value(k, kv[i].v);
	}
}

/* The checked value (or default) of a declared key; NULL text when it has neither. */
static union xt_val key_value(const char *key)
{
	const struct xt_key *k = declaration(key);
	const char *v = find(key);

	if (!k)
		xt_badparam(key, "read by the bench but not declared");
	if (!v && !k->dflt && k->type != XT_WORD && k->type != XT_TEXT)
		xt_badparam(key, "missing (it has no default)");
	return v || k->dflt ? check_value(k, v ? v : k->dflt) : (union xt_val){ .s = NULL };
}

uint64_t xt_key_u64(const char *key) { return key_value(key).u; }
double xt_key_double(const char *key) { return key_value(key).d; }
uint64_t xt_key_size(const char *key) { return key_value(key).u; }
bool xt_key_bool(const char *key) { return key_value(key).u != 0; }
const char *xt_key_str(const char *key) { return key_value(key).s; }
