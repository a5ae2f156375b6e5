/* approval-decide.h: deciding a pending run-outside request. */
#ifndef SBOX_APPROVAL_DECIDE_H
#define SBOX_APPROVAL_DECIDE_H

#include <jansson.h>

#include "protocol/error.h"

struct conn;

/* Decide a pending request: "allow_once" or "deny"; decided_by says who
 * (e.g. "uid 1000 pid 42"). *result describes the decision. */
int approval_decide(long long id, const char *decision, const char *decided_by,
    json_t **result, sbox_error *err);
/* Decide a pending request as the terminal that asked it (decided_by
 * "terminal"): only the connection c that asked with `terminal` may. */
int approval_decide_terminal(long long id, const char *decision,
    const struct conn *c, json_t **result, sbox_error *err);
/* The waiter done_arg of a pending request is withdrawn (the program that
 * asked is gone): told the end (126) and forgotten; the request is denied
 * and recorded when no other asker waits for it. 0, or -1 when it is not
 * pending (or done_arg does not wait for it). */
int approval_decide_withdraw(long long id, void *done_arg, const char *why);
#endif
