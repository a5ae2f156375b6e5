/* refusal-row.h: write one queued refusal into its counted row
 * (refusal-row.c; for store/ only). */
#ifndef SBOX_STORE_REFUSAL_ROW_H
#define SBOX_STORE_REFUSAL_ROW_H

#include "store/store-types.h"

int store_refusal_row_write(struct store *st, const struct store_batch_rec *r,
    sbox_error *err);

#endif
