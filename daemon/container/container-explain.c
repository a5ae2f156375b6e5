/* container-explain.c: bwrap's failure message as an sbox error that says
 * what is missing and how to fix it. */
#include "daemon/container/container.h"
#include "daemon/container/userns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

/* User namespaces were refused: say what restricts them and the fix. */
static void
container_explain_userns(const char *line, sbox_error *err)
{
	struct userns_state st;
	char why[900];

	userns_read(&st);
	if (userns_explain(&st, NULL, why, sizeof why))
		/* a loaded profile that did not help this bwrap */
		error_set(err, E_SANDBOX_UNAVAILABLE, "the sandbox cannot "
		    "start: user namespaces are restricted for this bwrap: %s "
		    "(bwrap: %s)", why, line);
	else
		error_set(err, E_SANDBOX_UNAVAILABLE, "the sandbox cannot "
		    "start: %s (bwrap: %s)", why, line);
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
