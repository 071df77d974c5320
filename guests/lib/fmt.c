/* fmt.c - freestanding printf subset for protocol lines.
 *
 * Supports %s %c %d %i %u %x %X %p %% with modifiers l, ll, z, a field width and the
 * '0' / '-' flags. No floating point, no precision. Output is always NUL-terminated and
 * truncated to the buffer; the return value is the length that would have been written.
 * xt_printf lines are limited to XT_LINE_MAX bytes (longer ones are truncated).
 */
#include "xt.h"

#define XT_LINE_MAX 512

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_num(struct out *o, uint64_t v, unsigned base, bool neg, bool upper,
		    unsigned width, bool zero, bool left)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	unsigned n = 0, len;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	len = n + (neg ? 1 : 0);
	if (neg && zero)
		put(o, '-');
	if (!left)
		for (; width > len; width--)
			put(o, zero ? '0' : ' ');
	if (neg && !zero)
		put(o, '-');
	while (n)
		put(o, tmp[--n]);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

int xt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		bool zero = false, left = false;
		unsigned width = 0, lng = 0;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '0')
				zero = true;
			else if (*fmt == '-')
				left = true;
			else
				break;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (unsigned)(*fmt++ - '0');
		for (;; fmt++) {
			if (*fmt == 'l')
				lng++;
			else if (*fmt == 'z')
				lng = 2;
			else
				break;
		}
		if (left)
			zero = false;
		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v = lng ? (lng == 1 ? va_arg(ap, long) : va_arg(ap, long long))
					: va_arg(ap, int);
			uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			put_num(&o, u, 10, v < 0, false, width, zero, left);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v = lng ? (lng == 1 ? va_arg(ap, unsigned long)
						     : va_arg(ap, unsigned long long))
					 : va_arg(ap, unsigned int);
			put_num(&o, v, *fmt == 'u' ? 10 : 16, false, *fmt == 'X', width, zero, left);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uintptr_t)va_arg(ap, void *), 16, false, false, 0, false, false);
			break;
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			size_t n;
			if (!s)
				s = "(null)";
			n = xt_strlen(s);
			if (!left)
				for (; width > n; width--)
					put(&o, ' ');
			while (*s)
				put(&o, *s++);
			if (left)
				for (; width > n; width--)
					put(&o, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int xt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = xt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

void xt_printf(const char *fmt, ...)
{
	char line[XT_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = xt_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line)) {    /* truncated: keep the newline */
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	xt_console_write(line, (size_t)n);
}
