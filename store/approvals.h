/* approvals.h: the write behind a delayed approval finish
 * (approvals.c; for store/ only). */
#ifndef SBOX_STORE_APPROVALS_H
#define SBOX_STORE_APPROVALS_H

#include "store/store-types.h"

int store_approval_finish_now(struct store *st, long long id, int exit_code,
    long long duration_ms, long long command_id, sbox_error *err);

#endif
