/* approval-limit.c: the per-session budget of run-outside requests (a burst
 * waiting at once, a steady rate per minute). Bounded: a fixed table of
 * budgets, the least recently used one reused. Pure: no sessions, no
 * clock (time is passed in). */
#include "daemon/command/approval-limit.h"

#include <stdio.h>
#include <string.h>


#define APPROVAL_LIMIT_SLOTS   256
#define APPROVAL_LIMIT_WINDOW  60000   /* ms */

/* One top-level session's budget. */
struct approval_limit_slot {
	char          key[APPROVAL_LIMIT_KEY];
	long long     window_ms;  /* when this minute began */
	int           asked;      /* requests let through in it */
	int           flooding;   /* refused since the last one let through */
	unsigned long flood;      /* refused in this flood */
	unsigned long total;      /* refused since sboxd started */
	long long     used_ms;
	int           in_use;
};

static struct approval_limit_slot approval_limit_slots[APPROVAL_LIMIT_SLOTS];

/* The slot of key: found, free, or the least recently used one (reset). */
static struct approval_limit_slot *
approval_limit_slot(const char *key, long long now_ms)
{
	struct approval_limit_slot *s, *victim = NULL;
	size_t i;

	for (i = 0; i < APPROVAL_LIMIT_SLOTS; i++) {
		s = &approval_limit_slots[i];
		if (s->in_use && strcmp(s->key, key) == 0)
			return s;
		if (victim == NULL || !s->in_use ||
		    (victim->in_use && s->used_ms < victim->used_ms))
			victim = s;
	}
	memset(victim, 0, sizeof *victim);
	snprintf(victim->key, sizeof victim->key, "%s", key);
	victim->in_use = 1;
	victim->window_ms = now_ms;
	return victim;
}

/* May root ask now? */
int
approval_limit_check(const char *root, int pending, long long now_ms,
    int burst, int per_minute, int *notice, unsigned long *refused,
    sbox_error *err)
{
	struct approval_limit_slot *s = approval_limit_slot(root, now_ms);

	*notice = 0;
	s->used_ms = now_ms;
	if (now_ms - s->window_ms >= APPROVAL_LIMIT_WINDOW ||
	    now_ms < s->window_ms) {
		s->window_ms = now_ms;
		s->asked = 0;
	}
	if (pending < burst && s->asked < per_minute) {
		s->asked++;
		*refused = s->flood;	/* the flood that just ended, if any */
		s->flooding = 0;
		s->flood = 0;
		return 0;
	}
	s->total++;
	*refused = ++s->flood;
	if (!s->flooding) {
		s->flooding = 1;
		*notice = 1;
	}
	if (pending >= burst)
		return error_set(err, E_RATE_LIMITED, "too many requests to run "
		    "outside the sandbox: %d of this session are already "
		    "waiting for a decision (approvals.burst); refused without "
		    "asking anyone (%lu refused in a row)", pending, s->flood);
	return error_set(err, E_RATE_LIMITED, "too many requests to run outside "
	    "the sandbox: this session asked %d times in the last minute "
	    "(approvals.per_minute); refused without asking anyone (%lu "
	    "refused in a row)", s->asked, s->flood);
}

/* Requests of root refused since sboxd started. */
unsigned long
approval_limit_refused(const char *root)
{
	size_t i;

	for (i = 0; i < APPROVAL_LIMIT_SLOTS; i++)
		if (approval_limit_slots[i].in_use &&
		    strcmp(approval_limit_slots[i].key, root) == 0)
			return approval_limit_slots[i].total;
	return 0;
}
