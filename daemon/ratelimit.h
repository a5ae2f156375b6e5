/* ratelimit.h: a small keyed rate limiter for repeated log lines and events:
 * the first `burst` hits of a key in each interval pass, the rest are
 * counted, and the count is reported once ("N more like this") when the
 * key's interval ends. Pure: no libevent, no I/O, time passed in. */
#ifndef SBOX_RATELIMIT_H
#define SBOX_RATELIMIT_H

#include <stddef.h>

#define RATELIMIT_KEY_MAX 160   /* longer keys are cut (and may share a slot) */

struct ratelimit_slot {
	char          key[RATELIMIT_KEY_MAX];
	long long     start_ms;    /* when this key's interval began */
	long long     used_ms;     /* last hit, for eviction */
	unsigned long passed;      /* hits let through in this interval */
	unsigned long suppressed;  /* hits held back in this interval */
	int           in_use;
};

struct ratelimit {
	struct ratelimit_slot *slots;
	size_t                 n_slots;
	unsigned long          burst;        /* hits per key and interval let through */
	long long              interval_ms;
};

/* Called with the key and the number of hits held back in its interval. */
typedef void (*ratelimit_report_fn)(const char *key, unsigned long suppressed,
    void *arg);

/* Set up a limiter with n_slots keys (slots is the caller's storage). */
void ratelimit_init(struct ratelimit *rl, struct ratelimit_slot *slots,
    size_t n_slots, unsigned long burst, long long interval_ms);
/* One hit of key at now_ms: 1 when it may pass, 0 when it is held back.
 * When a slot must be reused, or the key's interval is over, what was held
 * back is reported first through report (may be NULL). */
int ratelimit_hit(struct ratelimit *rl, const char *key, long long now_ms,
    ratelimit_report_fn report, void *arg);
/* Report and reset every key whose interval ended by now_ms (call from a
 * timer); returns how many keys were reported. */
int ratelimit_expire(struct ratelimit *rl, long long now_ms,
    ratelimit_report_fn report, void *arg);
/* Report everything held back now (at shutdown) and forget all keys. */
void ratelimit_flush(struct ratelimit *rl, ratelimit_report_fn report, void *arg);

#endif
