/* plan-types.h: the plan's structure (struct plan: its mounts, path
 * rules, network and limits) and the rule names; functions on it are in
 * plan.h. */
#ifndef SBOX_PLAN_TYPES_H
#define SBOX_PLAN_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct guard_spec;

/* Why a path is treated specially: named in `blocked` results and errors. */
#define PLAN_RULE_SYSTEM      "system folders, read-only"
#define PLAN_RULE_PROJECT     "the project folder"
#define PLAN_RULE_SCRATCH     "the session's scratch folder"
#define PLAN_RULE_TMP         "the sandbox's private /tmp"
#define PLAN_RULE_TOOLS       "developer tools, read-only"
#define PLAN_RULE_CACHES      "package caches"
#define PLAN_RULE_CREDENTIALS "credentials, hidden"
#define PLAN_RULE_RUNS_LATER  "read-only, files that run programs later"
#define PLAN_RULE_SOCKETS     "host Unix sockets, hidden"
#define PLAN_RULE_HOME        "the home folder, hidden"
#define PLAN_RULE_PROFILE_RW  "profile folders, read-write"
#define PLAN_RULE_PROFILE_RO  "profile folders, read-only"
#define PLAN_RULE_PROFILE_DENY "profile folders, denied"
#define PLAN_RULE_SBOX        "sbox's own config, state and socket, hidden"
#define PLAN_RULE_ROOT_ONLY   "readable by root only, hidden"
#define PLAN_RULE_GITDIR      "the project's git folder (a linked worktree's)"
#define PLAN_RULE_PROVIDER_HOME "the provider's own home folder"
#define PLAN_RULE_ACCOUNT     "an agent's account folder, read-only but what the agent writes while it works"
#define PLAN_RULE_SIGNIN      "an agent's sign-in, readable but not writable"
#define PLAN_RULE_AGENT_NAMED "read-only, named by an agent's settings"
#define PLAN_RULE_TELEMETRY   "an agent's telemetry and background hosts, refused by default"
#define PLAN_RULE_ACCOUNT_PRIVATE "an agent's folder of its own in this session (discarded at close)"

/* One mount operation; applied in list order (later ones cover earlier). */
enum plan_mount_kind {
	PLAN_MOUNT_RO_BIND,   /* src (host) -> dst, read-only */
	PLAN_MOUNT_RW_BIND,   /* src (host) -> dst, read-write */
	PLAN_MOUNT_TMPFS,     /* empty tmpfs at dst (size_bytes, 0 = default), mode */
	PLAN_MOUNT_PROC,      /* a new procfs at dst */
	PLAN_MOUNT_DEV,       /* a minimal /dev at dst */
	PLAN_MOUNT_DIR,       /* create an empty directory dst (in a tmpfs parent) */
	PLAN_MOUNT_HIDE_FILE, /* cover the file dst with an empty read-only file */
	PLAN_MOUNT_HIDE_DIR,  /* cover the folder dst with an empty read-only tmpfs */
	PLAN_MOUNT_SYMLINK,   /* symlink dst -> src (src is the link target) */
	PLAN_MOUNT_REMOUNT_RO,/* make the mount at dst read-only */
};

struct plan_mount {
	enum plan_mount_kind kind;
	char       *src;        /* host path (bind), link target (symlink), or NULL */
	char       *dst;        /* path inside the sandbox */
	int         optional;   /* skip silently when src does not exist */
	int         missing;    /* protected path that does not exist on the host:
	                           the renderer must keep it from being created */
	int         is_dir;     /* for protected paths: the thing is (or would be) a folder */
	mode_t      mode;       /* for TMPFS/DIR, 0 = default */
	uint64_t    size_bytes; /* for TMPFS, 0 = default */
	const char *rule;       /* PLAN_RULE_* that put it there */
};

/* A path rule the daemon uses to explain a refusal (longest prefix wins). */
enum plan_access { PLAN_ACCESS_HIDDEN, PLAN_ACCESS_RO, PLAN_ACCESS_RW };
struct plan_path_rule {
	char            *path;  /* path inside the sandbox (== host path) */
	enum plan_access access;
	const char      *rule;  /* PLAN_RULE_* */
};

enum plan_network { PLAN_NET_NONE, PLAN_NET_REGISTRIES, PLAN_NET_INTERNET,
    PLAN_NET_HOSTS /* the allowlist is the profile's hosts only */ };

struct plan_resolve {           /* static host table entry (config "resolve") */
	char  *host;
	char **addrs;              /* NULL-terminated address literals */
};

struct plan_net {
	enum plan_network mode;
	char   **hosts;             /* NULL-terminated host patterns allowed (profile,
	                               registries, provider), already validated */
	char   **private_hosts;     /* NULL-terminated exact names allowed to be private */
	char   **provider_hosts;    /* the session's provider's hosts: reachable
	                               in every mode, network "none" included */
	int     *local_ports;       /* local_ports[n_local_ports] */
	size_t   n_local_ports;
	struct plan_resolve *resolve; /* resolve[n_resolve] */
	size_t   n_resolve;
};

struct plan_limits {
	uint64_t pids;              /* max processes/threads in the sandbox */
	uint64_t memory_bytes;      /* address space / memory.max */
	uint64_t tmp_bytes;         /* size of the private /tmp */
	uint64_t output_bytes;      /* output kept per command (pipes mode) */
	uint64_t timeout_ms;        /* default command timeout, 0 = none */
	uint64_t nofile;            /* open files per process */
	uint64_t fsize_bytes;       /* largest file a command may write */
};

/* Abstract system-call policy; the seccomp renderer maps each flag. */
enum plan_sys {
	PLAN_SYS_BLOCK_NAMESPACES = 1 << 0, /* unshare, setns, clone(NEWUSER...), clone3 -> ENOSYS */
	PLAN_SYS_BLOCK_MOUNT      = 1 << 1, /* mount, umount, new mount API, pivot_root, chroot */
	PLAN_SYS_BLOCK_KEYRING    = 1 << 2, /* add_key, keyctl, request_key */
	PLAN_SYS_BLOCK_TTY_INJECT = 1 << 3, /* ioctl TIOCSTI, TIOCLINUX (32-bit compare) */
	PLAN_SYS_BLOCK_TRACE      = 1 << 4, /* ptrace, process_vm_readv/writev, perf_event_open */
	PLAN_SYS_BLOCK_PERSONALITY= 1 << 5, /* personality other than the default */
	PLAN_SYS_BLOCK_SOCKETS    = 1 << 6, /* families other than unix, inet, inet6, netlink */
	PLAN_SYS_BLOCK_IO_URING   = 1 << 7, /* io_uring_setup/enter/register */
	PLAN_SYS_BLOCK_KERNEL     = 1 << 8, /* kexec, modules, bpf, userfaultfd, quotactl, ... */
};

struct plan {
	struct plan_mount     *mounts;   size_t n_mounts;
	struct plan_path_rule *rules;    size_t n_rules;
	char                 **env;      /* NULL-terminated "NAME=VALUE" (proxy vars are
	                                    added by the daemon once the port is known) */
	struct plan_net        net;
	struct plan_limits     limits;
	unsigned               syscalls; /* OR of enum plan_sys */
	char                  *project;  /* project folder (same path inside) */
	char                  *scratch;  /* session scratch folder (same path inside) */
	char                  *home;     /* HOME inside the sandbox */
	char                  *cwd;      /* default working folder inside */
	char                  *hostname; /* uts name inside */
	uid_t                  uid;      /* uid/gid the sandbox presents */
	gid_t                  gid;
	int                    sandboxed;/* 0 for profile "none": nothing to render */
	struct guard_spec     *guard;    /* the file guard's roots, home and
	                                    protected names (sandboxed only) */
};

#endif
