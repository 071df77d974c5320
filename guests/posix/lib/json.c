/* json.c - a small JSON walker for cyclictest's --json file: calls fn(path, value) for
 * every scalar, with the path of object keys and array indices joined by '.'
 * ("thread.0.histogram.12" -> "3"). Strings are passed without quotes or escapes
 * decoded (cyclictest writes none that matter). No allocation; depth <= 16.
 */
#include <ctype.h>
#include <string.h>
#include "rt.h"

struct walker {
	const char *s;
	char path[256];
	void (*fn)(const char *, const char *, void *);
	void *ctx;
};

static void ws(struct walker *w)
{
	while (isspace((unsigned char)*w->s))
		w->s++;
}

/* Copies a string token (w->s at the opening quote) into out; false on error. */
static bool string(struct walker *w, char *out, size_t n)
{
	size_t k = 0;

	if (*w->s++ != '"')
		return false;
	while (*w->s && *w->s != '"') {
		if (*w->s == '\\' && w->s[1])
			w->s++;
		if (k + 1 < n)
			out[k++] = *w->s;
		w->s++;
	}
	out[k] = '\0';
	if (*w->s != '"')
		return false;
	w->s++;
	return true;
}

static bool value(struct walker *w, int depth);

static bool member(struct walker *w, const char *key, int depth)
{
	size_t len = strlen(w->path);
	bool ok;

	if (len + strlen(key) + 2 >= sizeof(w->path))
		return false;
	if (len)
		strcat(w->path, ".");
	strcat(w->path, key);
	ok = value(w, depth + 1);
	w->path[len] = '\0';
	return ok;
}

static bool value(struct walker *w, int depth)
{
	char buf[128];

	if (depth > 16)
		return false;
	ws(w);
	if (*w->s == '{' || *w->s == '[') {
		char close = *w->s == '{' ? '}' : ']';
		unsigned idx = 0;

		w->s++;
		ws(w);
		if (*w->s == close) {
			w->s++;
			return true;
		}
		for (;;) {
			ws(w);
			if (close == '}') {
				if (!string(w, buf, sizeof(buf)))
					return false;
				ws(w);
				if (*w->s++ != ':')
					return false;
			} else {
				xt_snprintf(buf, sizeof(buf), "%u", idx++);
			}
			if (!member(w, buf, depth))
				return false;
			ws(w);
			if (*w->s == ',') {
				w->s++;
				continue;
			}
			if (*w->s++ != close)
				return false;
			return true;
		}
	}
	if (*w->s == '"') {
		if (!string(w, buf, sizeof(buf)))
			return false;
	} else {
		size_t k = 0;
		while (*w->s && !strchr(",}] \t\r\n", *w->s)) {
			if (k + 1 < sizeof(buf))
				buf[k++] = *w->s;
			w->s++;
		}
		buf[k] = '\0';
		if (!k)
			return false;
	}
	w->fn(w->path, buf, w->ctx);
	return true;
}

bool rt_json_walk(const char *text, void (*fn)(const char *path, const char *value, void *ctx),
		  void *ctx)
{
	struct walker w = { .s = text, .fn = fn, .ctx = ctx };

	w.path[0] = '\0';
	return value(&w, 0);
}
