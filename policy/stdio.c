/* stdio.c: which descriptors may go into a sandbox as a command's stdio
 * (the CLI relays the others through pipes; sboxd refuses them). */
#include "policy/stdio.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* May fd go into a sandbox as it is (see stdio.h)? */
int
stdio_fd_allowed(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) == -1 || isatty(fd))
		return 0;
	if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode))
		return 1;
	return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	    (minor(st.st_rdev) == 3 || minor(st.st_rdev) == 5 ||
	    minor(st.st_rdev) == 7 || minor(st.st_rdev) == 8 ||
	    minor(st.st_rdev) == 9);
}
