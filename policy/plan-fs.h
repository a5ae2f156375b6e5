/* plan-fs.h: the real filesystem for policy_plan (stat, small reads, listing);
 * tests pass their own struct plan_fs instead. */
#ifndef SBOX_PLAN_FS_H
#define SBOX_PLAN_FS_H

#include "policy/policy.h"

/* stat(2), open(O_NOFOLLOW)+read, opendir(3). */
extern const struct plan_fs plan_fs_real;

#endif
