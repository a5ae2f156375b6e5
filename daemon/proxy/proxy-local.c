/* proxy-local.c: this computer's interface addresses from netlink, read
 * with libevent: the table is read at start (getifaddrs, after subscribing),
 * then every RTM_NEWADDR / RTM_DELADDR applied; after a lost message
 * (ENOBUFS) the table is read again. */
#include "daemon/proxy/proxy-local.h"

#include <errno.h>
#include <ifaddrs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <event2/event.h>

#include "daemon/log.h"

static struct proxy_addr_net proxy_local_nets[PROXY_LOCAL_MAX];
static size_t proxy_local_n;
static int proxy_local_fd = -1;
static struct event *proxy_local_ev;

/* Replace the table (tests). */
void
proxy_local_set(const struct proxy_addr_net *nets, size_t n)
{
	if (n > PROXY_LOCAL_MAX)
		n = PROXY_LOCAL_MAX;
	memcpy(proxy_local_nets, nets, n * sizeof *nets);
	proxy_local_n = n;
}

/* Why a must be refused as this computer's, or NULL. */
const char *
proxy_local_check(const struct proxy_addr *a)
{
	return proxy_addr_local(a, proxy_local_nets, proxy_local_n);
}

/* Add (add set) or remove one interface address. */
static void
proxy_local_update(const struct proxy_addr_net *e, int add)
{
	size_t i;

	for (i = 0; i < proxy_local_n; i++) {
		if (proxy_local_nets[i].prefix == e->prefix &&
		    memcmp(&proxy_local_nets[i].addr, &e->addr,
		    sizeof e->addr) == 0)
			break;
	}
	if (add && i == proxy_local_n) {
		if (proxy_local_n == PROXY_LOCAL_MAX) {
			log_warn("more than %d interface addresses: the proxy "
			    "does not know them all", PROXY_LOCAL_MAX);
			return;
		}
		proxy_local_nets[proxy_local_n++] = *e;
	} else if (!add && i < proxy_local_n) {
		proxy_local_nets[i] = proxy_local_nets[--proxy_local_n];
	}
}

/* Apply one RTM_NEWADDR / RTM_DELADDR message. */
static void
proxy_local_message(struct nlmsghdr *nh)
{
	struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	struct rtattr *rta;
	struct proxy_addr_net e;
	const void *local = NULL, *addr = NULL;
	int len, alen;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof *ifa) ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return;
	alen = ifa->ifa_family == AF_INET ? 4 : 16;
	len = (int)IFA_PAYLOAD(nh);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if ((int)RTA_PAYLOAD(rta) < alen)
			continue;
		if (rta->rta_type == IFA_LOCAL)
			local = RTA_DATA(rta);
		else if (rta->rta_type == IFA_ADDRESS)
			addr = RTA_DATA(rta);
	}
	if (local == NULL)
		local = addr;
	if (local == NULL)
		return;
	memset(&e, 0, sizeof e);
	e.addr.family = ifa->ifa_family;
	memcpy(e.addr.a, local, (size_t)alen);
	e.prefix = ifa->ifa_prefixlen;
	proxy_local_update(&e, nh->nlmsg_type == RTM_NEWADDR);
}

static void proxy_local_snapshot(void);

/* Read what the kernel sent: address changes. */
static void
proxy_local_read_cb(evutil_socket_t fd, short what, void *arg)
{
	char buf[16384] __attribute__((aligned(4)));
	struct nlmsghdr *nh;
	ssize_t n;
	int i;

	(void)what; (void)arg;
	for (i = 0; i < 64; i++) {
		n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			/* messages were lost: read the whole table again */
			proxy_local_n = 0;
			proxy_local_snapshot();
			continue;
		}
		if (n <= 0)
			return;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		    nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == RTM_NEWADDR ||
			    nh->nlmsg_type == RTM_DELADDR)
				proxy_local_message(nh);
		}
	}
}

/* Read the addresses once with getifaddrs (no netlink). */
static void
proxy_local_snapshot(void)
{
	struct ifaddrs *ifs, *i;

	if (getifaddrs(&ifs) == -1)
		return;
	for (i = ifs; i != NULL; i = i->ifa_next) {
		struct proxy_addr_net e;
		struct proxy_addr m;
		int bits = 0;
		size_t k;

		if (i->ifa_addr == NULL ||
		    proxy_addr_from_sockaddr(i->ifa_addr, &e.addr) < 0)
			continue;
		e.prefix = e.addr.family == AF_INET ? 32 : 128;
		if (i->ifa_netmask != NULL &&
		    proxy_addr_from_sockaddr(i->ifa_netmask, &m) == 0) {
			for (k = 0; k < 16; k++)
				bits += __builtin_popcount(m.a[k]);
			e.prefix = bits;
		}
		proxy_local_update(&e, 1);
	}
	freeifaddrs(ifs);
}

/* Read the interfaces' addresses and watch for changes. */
int
proxy_local_start(struct event_base *base, sbox_error *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	proxy_local_n = 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    NETLINK_ROUTE);
	sa.nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		error_set_errno(err, E_IO, errno, "netlink: cannot watch the "
		    "interfaces' addresses; the proxy uses the ones there now");
		if (fd >= 0)
			close(fd);
		proxy_local_snapshot();
		return -1;
	}
	proxy_local_fd = fd;
	/* subscribed first, so no change between the two is missed */
	proxy_local_snapshot();
	proxy_local_ev = event_new(base, fd, EV_READ | EV_PERSIST,
	    proxy_local_read_cb, NULL);
	if (proxy_local_ev == NULL || event_add(proxy_local_ev, NULL) < 0) {
		error_set_errno(err, E_IO, errno, "netlink: cannot read the "
		    "interfaces' addresses");
		proxy_local_stop();
		proxy_local_snapshot();
		return -1;
	}
	return 0;
}

/* Stop watching and forget the addresses. */
void
proxy_local_stop(void)
{
	if (proxy_local_ev != NULL)
		event_free(proxy_local_ev);
	proxy_local_ev = NULL;
	if (proxy_local_fd >= 0)
		close(proxy_local_fd);
	proxy_local_fd = -1;
	proxy_local_n = 0;
}
