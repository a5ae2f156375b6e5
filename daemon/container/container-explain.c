/* container-explain.c: bwrap's failure message as an sbox error that says
 * what is missing and how to fix it. */
#include "daemon/container/container.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The integer in a /proc/sys file, or -1 when absent or unreadable. */
static long
container_explain_sysctl(const char *path)
{
	char buf[32];
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof buf, f) != NULL)
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

/* The last non-empty line of bwrap's stderr, without "bwrap: ". */
static void
container_explain_line(const char *text, char *line, size_t size)
{
	const char *end, *start, *p;
	size_t n;

	line[0] = '\0';
	if (text == NULL)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (start = end; start > text && start[-1] != '\n'; start--)
		;
	if (strncmp(start, "bwrap: ", 7) == 0)
		start += 7;
	n = (size_t)(end - start);
	if (n >= size)
		n = size - 1;
	memcpy(line, start, n);
	line[n] = '\0';
	/* Paths inside bwrap's staging root read as the sandbox's. */
	while ((p = strstr(line, "/newroot/")) != NULL)
		memmove((char *)p, p + 8, strlen(p + 8) + 1);
	while ((p = strstr(line, "/oldroot/")) != NULL)
		memmove((char *)p, p + 8, strlen(p + 8) + 1);
}

/* User namespaces were refused: say which setting refuses them. */
static void
container_explain_userns(const char *line, sbox_error *err)
{
	const char *fix;

	if (container_explain_sysctl(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		fix = "AppArmor restricts unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns=1, as on "
		    "Ubuntu 24.04): give bwrap an AppArmor profile that allows "
		    "`userns` (e.g. /etc/apparmor.d/bwrap with `userns,`; "
		    "then apparmor_parser -r /etc/apparmor.d/bwrap), or run "
		    "`sysctl kernel.apparmor_restrict_unprivileged_userns=0`";
	else if (container_explain_sysctl(
	    "/proc/sys/kernel/unprivileged_userns_clone") == 0)
		fix = "unprivileged user namespaces are disabled: run "
		    "`sysctl kernel.unprivileged_userns_clone=1` (and set it in "
		    "/etc/sysctl.d/ to keep it)";
	else if (container_explain_sysctl(
	    "/proc/sys/user/max_user_namespaces") == 0)
		fix = "user namespaces are disabled (user.max_user_namespaces=0):"
		    " run `sysctl user.max_user_namespaces=15000`";
	else
		fix = "user namespaces are refused here; if sboxd runs inside a "
		    "container, that container must allow them (e.g. Docker "
		    "with a seccomp and AppArmor profile that permit unshare "
		    "and mount), or run sboxd on the host";
	error_set(err, E_SANDBOX_UNAVAILABLE,
	    "the sandbox cannot start: %s (bwrap: %s)", fix, line);
}

/* Turn bwrap's stderr into an error. */
void
container_explain(const char *bwrap_stderr, int status, sbox_error *err)
{
	char line[700], path[600];

	container_explain_line(bwrap_stderr, line, sizeof line);
	if (line[0] == '\0') {
		if (WIFSIGNALED(status))
			error_set(err, E_SANDBOX_SETUP, "the sandbox ended on "
			    "signal %d before it was ready", WTERMSIG(status));
		else
			error_set(err, E_SANDBOX_SETUP, "the sandbox exited "
			    "with status %d before it was ready",
			    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return;
	}
	if (strstr(line, "setting up uid map") ||
	    strstr(line, "setting up gid map") ||
	    strstr(line, "No permissions to creat") ||
	    strstr(line, "Creating new namespace failed") ||
	    strstr(line, "creation of new user namespaces") ||
	    strstr(line, "unshare") || strstr(line, "user namespace")) {
		container_explain_userns(line, err);
		return;
	}
	if (strstr(line, "Can't mount proc")) {
		error_set(err, E_SANDBOX_UNAVAILABLE, "the sandbox cannot mount "
		    "its own /proc: this usually means sboxd runs in a "
		    "container whose /proc is partly masked (run that container "
		    "with an unmasked /proc, e.g. Docker "
		    "--security-opt systempaths=unconfined) (bwrap: %s)", line);
		return;
	}
	if (sscanf(line, "Can't find source path %599[^:]", path) == 1) {
		error_set(err, E_SANDBOX_SETUP, "a mount of the sandbox failed: "
		    "%s does not exist; create it or remove it from the profile "
		    "(bwrap: %s)", path, line);
		return;
	}
	if (sscanf(line, "Can't bind mount %*s on %599[^:]", path) == 1 ||
	    sscanf(line, "Can't mkdir %599[^:]", path) == 1 ||
	    sscanf(line, "Can't create file at %599[^:]", path) == 1 ||
	    sscanf(line, "Can't mount tmpfs on %599[^:]", path) == 1 ||
	    sscanf(line, "Can't remount readonly on %599[^:]", path) == 1 ||
	    sscanf(line, "Can't make symlink at %599[^:]", path) == 1) {
		if (strstr(line, "Read-only file system") != NULL)
			error_set(err, E_SANDBOX_SETUP, "a mount of the sandbox "
			    "failed at %s: its mount point would have to be made "
			    "inside a read-only folder of the sandbox (a "
			    "read_only grant or a protected folder that holds "
			    "it), and sbox does not write to the host for it "
			    "(bwrap: %s)", path, line);
		else if (strstr(line, "Not a directory") != NULL ||
		    strstr(line, "Too many levels of symbolic links") != NULL)
			error_set(err, E_SANDBOX_SETUP, "a mount of the sandbox "
			    "failed at %s: a file or a link stands where a folder "
			    "is needed on the way to it (bwrap: %s)", path, line);
		else
			error_set(err, E_SANDBOX_SETUP, "a mount of the sandbox "
			    "failed at %s; check that the path and its parents "
			    "exist and are folders or files as the profile "
			    "expects (bwrap: %s)", path, line);
		return;
	}
	if (strstr(line, "execvp")) {
		error_set(err, E_SANDBOX_SETUP, "sbox-init could not run inside "
		    "the sandbox; check that sbox-init is installed and that "
		    "its libraries are visible in the sandbox (bwrap: %s)",
		    line);
		return;
	}
	if (strstr(line, "seccomp")) {
		error_set(err, E_SANDBOX_UNAVAILABLE, "the kernel refused the "
		    "sandbox's seccomp filter (CONFIG_SECCOMP_FILTER is needed) "
		    "(bwrap: %s)", line);
		return;
	}
	error_set(err, E_SANDBOX_SETUP, "the sandbox could not be set up: %s",
	    line);
}
