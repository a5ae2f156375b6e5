/* spill.h: records the full queue cannot hold, kept in a file next to the
 * store (spill.c; for store/ only). */
#ifndef SBOX_STORE_SPILL_H
#define SBOX_STORE_SPILL_H

#include "store/store-types.h"

/* The most bytes the spill file holds; a record past it is lost. */
#define STORE_SPILL_MAX (16ULL << 20)

int store_spill_push(struct store *st, const struct store_batch_rec *rec);
int store_spill_write(struct store *st, sbox_error *err);
void store_spill_done(struct store *st);
void store_spill_open(struct store *st);
void store_spill_close(struct store *st);

#endif
