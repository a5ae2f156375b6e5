/* approval-limit.h: how many run-outside requests one session may make. A
 * session and the sessions made inside it (its child sessions) share one
 * budget, kept under the top-level session's id: at most `burst` requests
 * waiting for a decision at once, and at most `per_minute` asked in one
 * minute (config approvals.burst and approvals.per_minute). A request above
 * is refused at once (sbox.RateLimited) and only counted: it is not stored,
 * not published, and the person hears of it once per flood (a flood ends
 * when a request of that session passes again). */
#ifndef SBOX_APPROVAL_LIMIT_H
#define SBOX_APPROVAL_LIMIT_H

#include <stddef.h>

#include "protocol/error.h"

/* Longest session id kept as a key. */
#define APPROVAL_LIMIT_KEY 72

/* May the session whose budget is root ask now, with pending of its
 * requests waiting? 0 (counted as asked), or -1 with E_RATE_LIMITED in
 * err; *notice is set to 1 for the first refusal of a flood (the one the
 * person hears of) and *refused to the count of this flood so far; when
 * it passes, *refused is the count of the flood it ends (0: none). */
int approval_limit_check(const char *root, int pending, long long now_ms,
    int burst, int per_minute, int *notice, unsigned long *refused,
    sbox_error *err);
/* Requests of root refused since sboxd started (for status and tests). */
unsigned long approval_limit_refused(const char *root);

#endif
