/* userns.c: what restricts the user namespaces bwrap makes, a probe that
 * makes one as bwrap does, and the sentence that names the fix. */
#include "daemon/container/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define USERNS_APPARMOR_PROFILES "/sys/kernel/security/apparmor/profiles"
#define USERNS_LIST_MAX (1 << 20)

/* The value of a /proc/sys file's text, or -1 when it is not an integer. */
long
userns_sysctl_parse(const char *text)
{
	char *end;
	long v;

	if (text == NULL)
		return -1;
	while (*text == ' ' || *text == '\t')
		text++;
	if (*text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text)
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return *end == '\0' ? v : -1;
}

/* Does the kernel's profile list hold a line "NAME (MODE)" for name? */
int
userns_profile_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (list == NULL || n == 0)
		return 0;
	for (p = list; p != NULL && *p != '\0'; p = strchr(p, '\n'),
	    p = p ? p + 1 : NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == ' ' && p[n + 1] == '(')
			return 1;
	}
	return 0;
}

/* Up to max bytes of a file as a string (caller frees), NULL if absent. */
static char *
userns_slurp(const char *path, size_t max)
{
	char *buf;
	size_t n = 0;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return NULL;
	if ((buf = malloc(max + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	while (n < max && (r = read(fd, buf + n, max - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

/* The integer in a /proc/sys file, or -1 when absent or unreadable. */
static long
userns_sysctl(const char *path)
{
	char *text = userns_slurp(path, 64);
	long v = userns_sysctl_parse(text);

	free(text);
	return v;
}

/* Read the settings and whether sbox's AppArmor profile is there. */
void
userns_read(struct userns_state *st)
{
	struct stat sb;
	char *list;

	memset(st, 0, sizeof *st);
	st->apparmor_restrict = userns_sysctl(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	st->userns_clone = userns_sysctl(
	    "/proc/sys/kernel/unprivileged_userns_clone");
	st->max_userns = userns_sysctl("/proc/sys/user/max_user_namespaces");
	st->root = geteuid() == 0;
	st->profile_installed = stat(USERNS_PROFILE_FILE, &sb) == 0;
	list = userns_slurp(USERNS_APPARMOR_PROFILES, USERNS_LIST_MAX);
	st->profile_loaded = userns_profile_listed(list, USERNS_PROFILE_NAME);
	free(list);
}

/* Write text to a file of the caller's own /proc (async-signal-safe). */
int
userns_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, text, strlen(text));
	close(fd);
	return r == (ssize_t)strlen(text) ? 0 : -1;
}

/* Make a user namespace in a child as bwrap does; fill st's probe. */
void
userns_probe(struct userns_state *st)
{
	int p[2], res[2] = { USERNS_PROBE_FORK, 0 }, status;
	char map[48];
	pid_t pid;
	ssize_t r;

	st->probed = 1;
	st->probe_step = USERNS_PROBE_FORK;
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)geteuid(),
	    (unsigned)geteuid());
	if (pipe2(p, O_CLOEXEC) < 0) {
		st->probe_errno = errno;
		return;
	}
	if ((pid = fork()) == 0) {
		close(p[0]);
		res[0] = USERNS_PROBE_NONE;
		if (unshare(CLONE_NEWUSER) < 0)
			res[0] = USERNS_PROBE_UNSHARE;
		else if (userns_write("/proc/self/setgroups", "deny") < 0 &&
		    errno != ENOENT)
			res[0] = USERNS_PROBE_UID_MAP;
		else if (userns_write("/proc/self/uid_map", map) < 0)
			res[0] = USERNS_PROBE_UID_MAP;
		res[1] = res[0] == USERNS_PROBE_NONE ? 0 : errno;
		if (write(p[1], res, sizeof res) != (ssize_t)sizeof res)
			_exit(2);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		st->probe_errno = errno;
		close(p[0]);
		return;
	}
	do
		r = read(p[0], res, sizeof res);
	while (r < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r != (ssize_t)sizeof res) {
		st->probe_step = USERNS_PROBE_FORK;
		st->probe_errno = ECHILD;
		return;
	}
	st->probe_step = (enum userns_probe_step)res[0];
	st->probe_errno = res[1];
}

/* The probe's failure as "unshare(CLONE_NEWUSER): reason" in buf. */
static const char *
userns_probe_words(const struct userns_state *st, char *buf, size_t len)
{
	const char *what = st->probe_step == USERNS_PROBE_UNSHARE ?
	    "unshare(CLONE_NEWUSER)" : st->probe_step == USERNS_PROBE_UID_MAP ?
	    "writing the new namespace's uid_map" : "starting the probe";

	snprintf(buf, len, "%s: %s", what, strerror(st->probe_errno));
	return buf;
}

/* What restricts user namespaces and the one command that fixes it. */
int
userns_explain(const struct userns_state *st, const char *bwrap, char *buf,
    size_t len)
{
	char why[160] = "", tried[200] = "";
	const char *bw = bwrap != NULL ? bwrap : "bwrap";
	int failed = !st->probed || st->probe_step != USERNS_PROBE_NONE;

	if (st->probed && failed)
		snprintf(tried, sizeof tried, " (%s)",
		    userns_probe_words(st, why, sizeof why));
	if (st->probed && !failed && !st->root && st->apparmor_restrict == 1) {
		snprintf(buf, len, "a user namespace was made and its uid mapped, "
		    "as bwrap does: AppArmor restricts them "
		    "(kernel.apparmor_restrict_unprivileged_userns=1) and %s",
		    st->profile_loaded ? "sbox's profile " USERNS_PROFILE_NAME
		    " allows them to sboxd and its bwrap" : "something allows "
		    "them to sboxd all the same");
		return 1;
	}
	if (st->probed && !failed) {
		snprintf(buf, len, "%s", st->root ? "as root, sboxd's bwrap makes "
		    "the sandboxes' user namespaces with root's privileges: "
		    "kernel.apparmor_restrict_unprivileged_userns and "
		    "kernel.unprivileged_userns_clone do not apply; a user "
		    "namespace was made and its uid mapped" : "a user namespace "
		    "was made and its uid mapped, as bwrap does");
		return 1;
	}
	if (st->max_userns == 0) {
		snprintf(buf, len, "user namespaces are restricted: "
		    "user.max_user_namespaces is 0, which refuses them to every "
		    "user%s%s; fix: `sudo sysctl user.max_user_namespaces=15000` "
		    "(keep it in /etc/sysctl.d/)", st->root ? ", root too" : "",
		    tried);
		return 0;
	}
	if (!st->root && st->userns_clone == 0) {
		snprintf(buf, len, "user namespaces are restricted: "
		    "kernel.unprivileged_userns_clone is 0 (a Debian kernel's "
		    "switch), which refuses them to users other than root%s; fix: "
		    "`sudo sysctl kernel.unprivileged_userns_clone=1` (keep it in "
		    "/etc/sysctl.d/)", tried);
		return 0;
	}
	if (!st->root && st->apparmor_restrict == 1) {
		if (st->profile_loaded) {
			snprintf(buf, len, "AppArmor restricts unprivileged user "
			    "namespaces (kernel.apparmor_restrict_unprivileged_userns"
			    "=1); its profile %s (%s) is loaded and allows them to "
			    "the bwrap it names: sboxd runs %s; when that is another "
			    "bwrap, fix: `sudo make install BWRAP=%s` in sbox's "
			    "source folder", USERNS_PROFILE_NAME, USERNS_PROFILE_FILE,
			    bw, bwrap != NULL ? bwrap : "PATH");
			return 1;
		}
		if (st->profile_installed)
			snprintf(buf, len, "user namespaces are restricted: "
			    "AppArmor refuses them to unconfined programs "
			    "(kernel.apparmor_restrict_unprivileged_userns=1)%s, "
			    "and sbox's profile %s is installed but not loaded; "
			    "fix: `sudo apparmor_parser -r %s`", tried,
			    USERNS_PROFILE_FILE, USERNS_PROFILE_FILE);
		else
			snprintf(buf, len, "user namespaces are restricted: "
			    "AppArmor refuses them to unconfined programs "
			    "(kernel.apparmor_restrict_unprivileged_userns=1, as on "
			    "Ubuntu 24.04)%s; fix: `sudo make install` in sbox's "
			    "source folder (it installs and loads the AppArmor "
			    "profile %s, which allows them to %s and sboxd only), "
			    "or, bluntly for every program, `sudo sysctl "
			    "kernel.apparmor_restrict_unprivileged_userns=0`", tried,
			    USERNS_PROFILE_NAME, bw);
		return 0;
	}
	snprintf(buf, len, "user namespaces are restricted: %s%s: a seccomp "
	    "filter or the container sboxd runs in refuses them; fix: run sboxd "
	    "on the host, or give its container a seccomp and AppArmor profile "
	    "that allow unshare (e.g. Docker's --security-opt "
	    "seccomp=unconfined)", st->root ? "as root, kernel.apparmor_"
	    "restrict_unprivileged_userns and kernel.unprivileged_userns_clone "
	    "do not apply and user.max_user_namespaces is not 0, yet they are "
	    "refused here" : "no setting refuses them (kernel.apparmor_"
	    "restrict_unprivileged_userns, kernel.unprivileged_userns_clone, "
	    "user.max_user_namespaces), yet they are refused here", tried);
	return 0;
}
