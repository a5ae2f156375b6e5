/* fault.h: the fault bookkeeping (fault.c; for store/ only; store_fault_moved
 * and the clock are in store.h). */
#ifndef SBOX_STORE_FAULT_H
#define SBOX_STORE_FAULT_H

#include "store/store-types.h"

int store_fault_is(const struct store *st);
void store_fault_note(struct store *st, const sbox_error *err);
void store_fault_ok(struct store *st);

#endif
