/* queue.h: queue one record, flushing a full queue first
 * (queue.c; for store/ only). */
#ifndef SBOX_STORE_QUEUE_H
#define SBOX_STORE_QUEUE_H

#include "store/store-types.h"

int store_queue_push(struct store *st, struct store_batch_rec *rec,
    sbox_error *err);

#endif
