/* notify.h: tell the service manager sboxd is ready (systemd's sd_notify
 * protocol, without libsystemd). */
#ifndef SBOX_NOTIFY_H
#define SBOX_NOTIFY_H

/* Send "READY=1" to $NOTIFY_SOCKET when it is set (then unset it, so no
 * child inherits it). Returns 0 (also when there is no such socket), -1
 * when sending failed (logged). */
int notify_ready(void);

#endif
