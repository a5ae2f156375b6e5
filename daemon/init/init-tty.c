/* init-tty.c: sbox-init's pseudo-terminals. A command run with a terminal
 * gets a pair made in the container's own devpts (/dev/pts of the sandbox,
 * never a descriptor of the host's terminal): the child makes the slave its
 * controlling terminal, and the master goes to sboxd, which relays it. The
 * file guard opens files in a caller's place, so /dev/tty (what means "my
 * own controlling terminal") is opened here as the caller's terminal. */
#include "daemon/init/init-tty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#define INIT_TTY_PTS_MAJOR  136   /* UNIX98 pty slaves: majors 136..143 */
#define INIT_TTY_PTS_MAJORS 8

/* A new pty pair in the container's devpts, sized rows x cols: *master and
 * *slave (close-on-exec, never our controlling terminal); 0 or an errno. */
int
init_tty_open(unsigned short rows, unsigned short cols, int *master,
    int *slave)
{
	struct winsize ws;
	struct termios t;
	char name[64];
	int m, s, e;

	*master = *slave = -1;
	if ((m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return errno;
	if (grantpt(m) < 0 || unlockpt(m) < 0) {
		e = errno;
		close(m);
		return e;
	}
	/* the peer of this master, without looking a path up */
	s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0 && ptsname_r(m, name, sizeof name) == 0)
		s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0) {
		e = errno;
		close(m);
		return e;
	}
	memset(&ws, 0, sizeof ws);
	ws.ws_row = rows;
	ws.ws_col = cols;
	if (ioctl(m, TIOCSWINSZ, &ws) < 0) {
		e = errno;
		close(m);
		close(s);
		return e;
	}
	/* the defaults of a new terminal, with UTF-8 line editing */
	if (tcgetattr(s, &t) == 0) {
		t.c_iflag |= IUTF8;
		tcsetattr(s, TCSANOW, &t);
	}
	*master = m;
	*slave = s;
	return 0;
}

/* In a forked child, after setsid(): the slave becomes the controlling
 * terminal and stdin, stdout and stderr; 0 or an errno. */
int
init_tty_child(int slave)
{
	int i;

	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return errno;
	for (i = 0; i < 3; i++)
		if (dup2(slave, i) < 0)
			return errno;
	return 0;
}

/* The controlling terminal's device of process tgid (from its stat line),
 * 0 when it has none, -1 when it cannot be read. */
static long long
init_tty_ctty_dev(pid_t tgid)
{
	char path[64], buf[1024], *p;
	long long tty = -1;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)tgid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* the command name may hold anything: fields start after its last ')' */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	/* state ppid pgrp session tty_nr: the 5th field after the name */
	for (field = 0; field < 5 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		tty = strtoll(p + 1, NULL, 10);
	return tty;
}

/* For the file guard: open what /dev/tty means for process tgid (its own
 * controlling terminal, a pty of the container's devpts) with the caller's
 * open flags; the fd, or -errno (ENXIO when it has none, as the kernel). */
int
init_tty_open_ctty(pid_t tgid, int flags)
{
	long long dev = init_tty_ctty_dev(tgid);
	unsigned int maj, min;
	struct stat st;
	char path[64];
	int fd;

	if (dev < 0)
		return -EACCES;
	if (dev == 0)
		return -ENXIO;
	maj = major((dev_t)dev);
	min = minor((dev_t)dev);
	if (maj < INIT_TTY_PTS_MAJOR || maj >= INIT_TTY_PTS_MAJOR +
	    INIT_TTY_PTS_MAJORS)
		return -ENXIO; /* not a terminal of this sandbox */
	snprintf(path, sizeof path, "/dev/pts/%u",
	    (maj - INIT_TTY_PTS_MAJOR) * 256u + min);
	fd = open(path, (flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_DIRECTORY)) |
	    O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENXIO : -errno;
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) ||
	    st.st_rdev != makedev(maj, min)) {
		close(fd);
		return -ENXIO;
	}
	return fd;
}
