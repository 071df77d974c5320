/* catalogue.c - a program's benches as JSON on the console: `xtalk-bench catalogue`,
 * `xtalk-rt catalogue`, `xtalk-steal catalogue` (mk/catalogue.mk gathers the three
 * into build/catalogue.json; xtalk checks campaign specs against it before anything
 * starts, docs/benchmarks.md "The catalogue").
 *
 * Each parameter is printed from the declaration xt_params_check checks values
 * against (struct xt_key), each metric from the table the bench declares it with, so
 * nothing is listed twice. A stressor also lists the interference channels it loads
 * (names: src/xtalk/interference/names.py, docs/channels.md) and the ranges a worst-case
 * search tunes its parameters over (`tune`: same shape as `params`, the range being the
 * search range, sizes in cache units; `xtalk search`). Strings are printed as they are: declarations hold no '"'
 * or '\' (xt.h).
 */
#include "xt.h"

static bool first_bench, first_metric;

static void str(const char *key, const char *v, const char *after)
{
	if (v)
		xt_printf("\"%s\": \"%s\"%s", key, v, after);
	else
		xt_printf("\"%s\": null%s", key, after);
}

static void key(const struct xt_key *k, bool *first)
{
	xt_printf("%s{", *first ? "" : ", ");
	*first = false;
	str("name", k->name, ", ");
	str("type", xt_type_names[k->type], ", ");
	str("range", k->range, ", ");
	str("default", k->dflt, "}");
}

static bool omitted(const char *name, const char *const *omit)
{
	for (; omit && *omit; omit++)
		if (!xt_strcmp(*omit, name))
			return true;
	return false;
}

void xt_cat_suite(const char *suite, const char *program, const struct xt_key *extra,
		  const char *const *omit)
{
	bool first = true;

	xt_printf("{");
	str("suite", suite, ", ");
	str("program", program, ",\n \"common\": [");
	for (const struct xt_key *k = xt_common_keys; k->name; k++)
		if (!omitted(k->name, omit))
			key(k, &first);
	for (const struct xt_key *k = extra; k && k->name; k++)
		key(k, &first);
	xt_printf("],\n \"benches\": [");
	first_bench = true;
}

/* "channels": ["l1", "l2"] from "l1 l2" (names hold no '"' or '\\') */
static void channel_list(const char *channels)
{
	const char *sep = "";

	xt_printf("\"channels\": [");
	for (const char *c = channels; c && *c; sep = ", ") {
		while (*c == ' ')
			c++;
		if (!*c)
			break;
		xt_printf("%s\"", sep);
		for (; *c && *c != ' '; c++)
			xt_printf("%c", *c);
		xt_printf("\"");
	}
	xt_printf("]");
}

void xt_cat_bench(const char *name, const char *role, const char *kpi,
		  const struct xt_key *keys, const char *channels, unsigned buffers, const struct xt_key *tune,
		  bool smp)
{
	bool first = true;

	xt_printf("%s\n  {", first_bench ? "" : "]},");
	first_bench = false;
	str("name", name, ", ");
	str("role", role, ", ");
	str("kpi", kpi, ",\n   \"params\": [");
	for (const struct xt_key *k = keys; k && k->name; k++)
		key(k, &first);
	xt_printf("],\n   ");
	channel_list(channels);
	xt_printf(", \"buffers\": %u, \"smp\": %s, \"tune\": [", buffers ? buffers : 1, smp ? "true" : "false");
	first = true;
	for (const struct xt_key *k = tune; k && k->name; k++)
		key(k, &first);
	xt_printf("],\n   \"metrics\": [");
	first_metric = true;
}

void xt_cat_metric(const char *name, const char *unit, const char *kind)
{
	xt_printf("%s{", first_metric ? "" : ", ");
	first_metric = false;
	str("name", name, ", ");
	str("unit", unit, ", ");
	str("kind", kind ? kind : "duration", "}");
}

void xt_cat_xt_bench(const struct xt_bench *b)
{
	xt_cat_bench(b->name, b->role, b->kpi, b->keys, b->channels, b->buffers, b->tune, b->smp);
	for (unsigned c = 0; c < b->ncases; c++)
		xt_cat_metric(b->cases[c].name, b->cases[c].unit, b->cases[c].kind);
}

void xt_cat_end(void)
{
	xt_printf("%s]}\n", first_bench ? "" : "]}");
}
