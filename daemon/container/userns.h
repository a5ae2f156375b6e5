/* userns.h: can this sboxd have the user namespaces bwrap makes? The
 * settings that restrict them (AppArmor's, Debian's, the namespace count),
 * a probe that makes one as bwrap does (unshare, then its uid map), and the
 * sentence that says what is restricted and the one command that fixes it.
 * Used by `sandbox check` and by the error of a bwrap that could not make
 * its namespace. */
#ifndef SBOX_USERNS_H
#define SBOX_USERNS_H

#include <stddef.h>

/* The AppArmor profile `make install` ships (systemd/sbox.apparmor.in). */
#define USERNS_PROFILE_FILE "/etc/apparmor.d/sbox"
#define USERNS_PROFILE_NAME "sbox-bwrap"

enum userns_probe_step { USERNS_PROBE_NONE, USERNS_PROBE_FORK,
    USERNS_PROBE_UNSHARE, USERNS_PROBE_UID_MAP };

struct userns_state {
	long apparmor_restrict; /* kernel.apparmor_restrict_unprivileged_userns, -1 absent */
	long userns_clone;      /* kernel.unprivileged_userns_clone, -1 absent */
	long max_userns;        /* user.max_user_namespaces, -1 absent */
	int  root;              /* sboxd runs as uid 0 */
	int  profile_loaded;    /* the profile is in the kernel */
	int  profile_installed; /* USERNS_PROFILE_FILE exists */
	int  probed;            /* the probe ran */
	enum userns_probe_step probe_step; /* where it failed (NONE: it worked) */
	int  probe_errno;
};

/* The value of a /proc/sys file's text ("1\n"), or -1 when it is not one
 * integer. */
long userns_sysctl_parse(const char *text);
/* Does the kernel's profile list (/sys/kernel/security/apparmor/profiles:
 * "NAME (MODE)" lines) hold profile name? */
int userns_profile_listed(const char *list, const char *name);
/* Read the settings and whether the profile is installed and loaded. */
void userns_read(struct userns_state *st);
/* Make a user namespace as bwrap does, in a child: unshare(CLONE_NEWUSER),
 * then its setgroups and uid map; fills the probe fields of st. */
void userns_probe(struct userns_state *st);
/* Write text to a file of the caller's own /proc (a namespace's
 * setgroups, uid_map, gid_map: async-signal-safe); 0 or -1. */
int userns_write(const char *path, const char *text);
/* What restricts user namespaces and the one command that fixes it, or
 * what applies as root, in buf ("" when nothing restricts them). Returns
 * 1 when sessions can have their namespaces as far as st tells. */
int userns_explain(const struct userns_state *st, const char *bwrap,
    char *buf, size_t len);

#endif
