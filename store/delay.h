/* delay.h: keep failed writes for later (delay.c; for store/ only). */
#ifndef SBOX_STORE_DELAY_H
#define SBOX_STORE_DELAY_H

#include "store/store-types.h"

int store_delay_push(struct store *st, const struct store_delayed *d);
int store_delay_retry(struct store *st, sbox_error *err);
void store_delay_clear(struct store *st);

#endif
