/* hist.c - log2 histogram printing (the hot-path add is inline in xt.h).
 *
 * Bucket k counts values in [2^k, 2^(k+1)) (bucket 0 also holds 0); the last bucket
 * is the overflow bucket (>= 2^(nbuckets-1)) and its line carries overflow=1, so a
 * value beyond the range is flagged, never dropped. Only non-empty buckets print.
 */
#include "xt.h"

void xt_hist_init(struct xt_hist *h, unsigned nbuckets)
{
	if (nbuckets < 2)
		nbuckets = 2;
	if (nbuckets > XT_HIST_MAX)
		nbuckets = XT_HIST_MAX;
	xt_memset(h, 0, sizeof(*h));
	h->nbuckets = nbuckets;
}

void xt_hist_print(const struct xt_hist *h, unsigned metric)
{
	for (unsigned k = 0; k < h->nbuckets; k++) {
		bool over = k == h->nbuckets - 1 && h->nbuckets < XT_HIST_MAX;
		if (h->count[k])
			xt_printf("XT HIST run=%s metric=%u log2_bucket=%u count=%lu%s\n",
				  xt_run_id(), metric, k, (unsigned long)h->count[k],
				  over ? " overflow=1" : "");
	}
}
