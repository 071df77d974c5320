/* ring.c - the sample ring writer (docs/protocol.md section 3).
 *
 * With shared memory (xt_ring_memory() != NULL) the host initialised the header; we
 * check magic/version/slot size/capacity, write freq_hz and append samples. Without it
 * we build the same ring in xt_alloc memory and print it as XT SAMPLE lines after the
 * measured window (xt_ring_drain). The writer never blocks: slot seq % capacity is
 * overwritten, and a reader (or the drain) sees losses as missing seq numbers.
 * Several writers (a bench on several vCPUs): each takes its slot's seq with an atomic
 * fetch-and-add, fills the slot, and publishes write_seq in seq order, waiting for the
 * writers of the seqs before its own (the reader trusts every slot below write_seq).
 * Caveat: xt_sample runs inside the bench loop (possibly in user mode), so the ring
 * memory and the static state below must be accessible there. With several writers a
 * vCPU preempted between its fetch-and-add and its publication holds back the others'
 * publications until it runs again: outside every measured window (a sample is written
 * after its window ends), but it is time a stacked vCPU spends here, not in its loop.
 */
#include "xt.h"

static volatile struct xt_ring_hdr *hdr;
static volatile struct xt_slot *slots;
static uint64_t cap, seq;
static bool shared, several;

bool xt_ring_shared(void)
{
	return shared;
}

uint64_t xt_ring_written(void)
{
	return seq;
}

static bool init_header(struct xt_ring_hdr *h, uint64_t capacity, uint64_t freq_hz)
{
	xt_memcpy(h->magic, XT_RING_MAGIC, 8);
	h->version = 1;
	h->slot_size = XT_SLOT_SIZE;
	h->capacity = capacity;
	h->write_seq = 0;
	h->heartbeat = 0;
	h->freq_hz = freq_hz;
	return true;
}

bool xt_ring_open(uint64_t freq_hz, uint64_t buffer_slots, unsigned writers)
{
	size_t bytes = 0;
	struct xt_ring_hdr *h = xt_ring_memory(&bytes);

	seq = 0;
	several = writers > 1;
	if (h) {
		if (bytes < XT_RING_HDR + XT_SLOT_SIZE || xt_memcmp(h->magic, XT_RING_MAGIC, 8)) {
			xt_error("ring", "shared ring has no XTRING01 header");
			return false;
		}
		if (h->version != 1 || h->slot_size != XT_SLOT_SIZE || h->capacity == 0 ||
		    h->capacity > (bytes - XT_RING_HDR) / XT_SLOT_SIZE) {
			xt_error("ring", "shared ring header: bad version, slot size or capacity");
			return false;
		}
		if (h->write_seq != 0) {
			xt_error("ring", "shared ring already written (write_seq != 0)");
			return false;
		}
		h->freq_hz = freq_hz;
		shared = true;
	} else {
		if (buffer_slots == 0)
			buffer_slots = 1;
		h = xt_alloc(XT_RING_HDR + buffer_slots * XT_SLOT_SIZE);
		if (!h) {
			xt_error("buffer_slots", "cannot allocate the sample buffer");
			return false;
		}
		init_header(h, buffer_slots, freq_hz);
		shared = false;
	}
	cap = h->capacity;
	hdr = h;
	slots = (volatile struct xt_slot *)((char *)h + XT_RING_HDR);
	return true;
}

void xt_sample(uint32_t metric, uint64_t t, uint64_t value, uint32_t flags)
{
	uint64_t mine = several ? __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED) : seq++;
	volatile struct xt_slot *s = &slots[mine % cap];

	s->seq = mine;
	s->t = t;
	s->value = value;
	s->metric = metric;
	s->flags = flags;
	__atomic_thread_fence(__ATOMIC_RELEASE);   /* slot visible before write_seq */
	if (several)
		while (__atomic_load_n(&hdr->write_seq, __ATOMIC_ACQUIRE) != mine)
			xt_cpu_relax();
	hdr->write_seq = mine + 1;
	hdr->heartbeat = t;
}

void xt_ring_drain(void)
{
	uint64_t first = seq > cap ? seq - cap : 0;

	if (shared || !hdr)
		return;
	if (first)
		xt_printf("XT ERROR run=%s msg=\"sample buffer full: %lu oldest samples lost, raise "
			  "buffer_slots\"\n", xt_run_id(), (unsigned long)first);
	for (uint64_t i = first; i < seq; i++) {
		volatile struct xt_slot *s = &slots[i % cap];
		xt_printf("XT SAMPLE run=%s seq=%lu metric=%u t=%lu value=%lu%s\n", xt_run_id(),
			  (unsigned long)s->seq, (unsigned)s->metric, (unsigned long)s->t,
			  (unsigned long)s->value, (s->flags & XT_FLAG_OVERFLOW) ? " flags=1" : "");
	}
}
