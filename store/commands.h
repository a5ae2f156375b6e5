/* commands.h: the write behind a delayed command finish
 * (commands.c; for store/ only). */
#ifndef SBOX_STORE_COMMANDS_H
#define SBOX_STORE_COMMANDS_H

#include "store/store-types.h"

int store_command_finish_now(struct store *st, long long id, int exit_code,
    int sig, long long duration_ms, const char *state, json_t *blocked,
    sbox_error *err);

#endif
