/* migrate.h: the schema steps (migrate.c; for store/ only). */
#ifndef SBOX_STORE_MIGRATE_H
#define SBOX_STORE_MIGRATE_H

#include "store/store-types.h"

int store_migrate(struct store *st, int target, sbox_error *err);
int store_migrate_version(struct store *st, sbox_error *err);

#endif
