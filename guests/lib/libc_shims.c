/* libc_shims.c - plain memset/memcpy/memmove/memcmp for FREESTANDING guest builds.
 *
 * gcc may emit calls to these four even in -ffreestanding code (struct copies, zeroing
 * loops). They forward to the xt_* versions in string.c. The native build must NOT
 * link this file (it would shadow the C library's).
 */
#include "xt.h"

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);

void *memset(void *d, int c, size_t n) { return xt_memset(d, c, n); }
void *memcpy(void *d, const void *s, size_t n) { return xt_memcpy(d, s, n); }
void *memmove(void *d, const void *s, size_t n) { return xt_memmove(d, s, n); }
int memcmp(const void *a, const void *b, size_t n) { return xt_memcmp(a, b, n); }
