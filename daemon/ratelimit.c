/* ratelimit.c: a keyed rate limiter with "N more like this" summaries. */
#include "daemon/ratelimit.h"

#include <string.h>

/* Set up a limiter with n_slots keys (slots is the caller's storage). */
void
ratelimit_init(struct ratelimit *rl, struct ratelimit_slot *slots,
    size_t n_slots, unsigned long burst, long long interval_ms)
{
	memset(slots, 0, n_slots * sizeof *slots);
	rl->slots = slots;
	rl->n_slots = n_slots;
	rl->burst = burst;
	rl->interval_ms = interval_ms > 0 ? interval_ms : 1000;
}

/* Report what a slot held back (if anything) and clear its counts. */
static void
ratelimit_report_slot(struct ratelimit_slot *s, ratelimit_report_fn report,
    void *arg)
{
	if (s->suppressed > 0 && report != NULL)
		report(s->key, s->suppressed, arg);
	s->suppressed = 0;
	s->passed = 0;
}

/* The slot of key, or a free (or the least recently used) one, reset. */
static struct ratelimit_slot *
ratelimit_slot(struct ratelimit *rl, const char *key, long long now_ms,
    ratelimit_report_fn report, void *arg)
{
	struct ratelimit_slot *s, *victim = NULL;
	size_t i;

	for (i = 0; i < rl->n_slots; i++) {
		s = &rl->slots[i];
		if (s->in_use && strncmp(s->key, key, RATELIMIT_KEY_MAX - 1) == 0)
			return s;
		if (victim == NULL || !s->in_use ||
		    (victim->in_use && s->used_ms < victim->used_ms))
			victim = s;
	}
	if (victim == NULL)
		return NULL;
	if (victim->in_use)
		ratelimit_report_slot(victim, report, arg);
	memset(victim, 0, sizeof *victim);
	strncpy(victim->key, key, RATELIMIT_KEY_MAX - 1);
	victim->in_use = 1;
	victim->start_ms = now_ms;
	return victim;
}

/* One hit of key: 1 when it may pass, 0 when it is held back. */
int
ratelimit_hit(struct ratelimit *rl, const char *key, long long now_ms,
    ratelimit_report_fn report, void *arg)
{
	struct ratelimit_slot *s;

	if ((s = ratelimit_slot(rl, key, now_ms, report, arg)) == NULL)
		return 1;
	if (now_ms - s->start_ms >= rl->interval_ms || now_ms < s->start_ms) {
		ratelimit_report_slot(s, report, arg);
		s->start_ms = now_ms;
	}
	s->used_ms = now_ms;
	if (s->passed < rl->burst) {
		s->passed++;
		return 1;
	}
	s->suppressed++;
	return 0;
}

/* Report and reset every key whose interval ended by now_ms. */
int
ratelimit_expire(struct ratelimit *rl, long long now_ms,
    ratelimit_report_fn report, void *arg)
{
	size_t i;
	int n = 0;

	for (i = 0; i < rl->n_slots; i++) {
		struct ratelimit_slot *s = &rl->slots[i];

		if (!s->in_use || now_ms - s->start_ms < rl->interval_ms)
			continue;
		if (s->suppressed > 0)
			n++;
		ratelimit_report_slot(s, report, arg);
		s->in_use = 0;
	}
	return n;
}

/* Report everything held back now and forget all keys. */
void
ratelimit_flush(struct ratelimit *rl, ratelimit_report_fn report, void *arg)
{
	size_t i;

	for (i = 0; i < rl->n_slots; i++) {
		if (rl->slots[i].in_use)
			ratelimit_report_slot(&rl->slots[i], report, arg);
		rl->slots[i].in_use = 0;
	}
}
