/* batch.h: the queue behind refusals and events (batch.c; for store/ only). */
#ifndef SBOX_STORE_BATCH_H
#define SBOX_STORE_BATCH_H

#include "store/store-types.h"

void store_batch_rec_free(struct store_batch_rec *r);
int store_batch_merge(struct store *st, struct store_batch_rec *rec);
int store_batch_write(struct store *st, sbox_error *err);
int store_batch_insert_one(struct store *st, struct store_batch_rec *r,
    sbox_error *err);
int store_batch_save_dropped(struct store *st, sbox_error *err);
void store_batch_clear(struct store *st);

#endif
