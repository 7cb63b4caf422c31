// SPDX-License-Identifier: GPL-2.0
/*
 * nicwatch: the guest agent of the hot-plug runs.
 *
 * Listens for links coming and going on an rtnetlink socket and, for every
 * network interface that appears, prints one line on the console with what
 * the driver's module parameters produced, read back through the real
 * ethtool ioctls:
 *
 *   NICWATCH add ifindex=3 name=eth0 driver=e1000 bus=0000:00:03.0
 *            tx=512 rx=1024 rx_usecs=3 autoneg=1 advertising=0x2f
 *            speed=-1 duplex=255 up=0
 *
 * (one line), and "NICWATCH del ifindex=3 name=eth0" when it goes away.
 * Values the driver does not report are -1. Links that exist at start
 * are reported too, so cold-plugged NICs are seen. Built static, so the
 * initramfs needs nothing but busybox and this.
 *
 *   nicwatch [DRIVER,...]
 *
 * brings the interfaces of the named drivers up before reading them back
 * (up=1): some drivers apply an option only when the interface is opened,
 * pcnet32's full_duplex for one. The NICs have no network backend, so
 * nothing they send leaves QEMU.
 *
 *   nicwatch show IFNAME [DRIVER,...]
 *
 * prints the same "add" line once for IFNAME and exits (1 if it is not a
 * NIC): the in-guest loops use it, as they need the line of each bind
 * before they unbind again.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_IFINDEX 4096

static char seen[MAX_IFINDEX];
static char names[MAX_IFINDEX][IFNAMSIZ];
/* ",driver1,driver2," from the command line: the drivers to bring up */
static char up_drivers[256] = ",";

/* One ethtool request on @name; returns 0 or -errno. */
static int ethtool(int fd, const char *name, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* Whether @driver is in the command line's list of drivers to bring up */
static int wants_up(const char *driver)
{
	char key[64];

	snprintf(key, sizeof(key), ",%s,", driver);
	return strstr(up_drivers, key) != NULL;
}

/* Set IFF_UP on @name; returns 0 or -errno. */
static int bring_up(int fd, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(fd, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

/* Print the "add" line of @name; returns 0, or -1 if it is not a NIC. */
static int report(int fd, int ifindex, const char *name)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_ringparam ring = { .cmd = ETHTOOL_GRINGPARAM };
	struct ethtool_coalesce coal = { .cmd = ETHTOOL_GCOALESCE };
	struct ethtool_cmd link = { .cmd = ETHTOOL_GSET };
	long tx = -1, rx = -1, usecs = -1, autoneg = -1, speed = -1, duplex = -1;
	unsigned long advertising = 0;
	int up = 0, err;

	/* Interfaces without a driver that answers (lo) are not NICs. */
	if (ethtool(fd, name, &info) || !info.bus_info[0])
		return -1;
	if (wants_up(info.driver)) {
		err = bring_up(fd, name);
		if (err)
			printf("NICWATCH error: %s up: %s\n", name, strerror(-err));
		up = !err;
	}
	if (!ethtool(fd, name, &ring)) {
		tx = ring.tx_pending;
		rx = ring.rx_pending;
	}
	if (!ethtool(fd, name, &coal))
		usecs = coal.rx_coalesce_usecs;
	if (!ethtool(fd, name, &link)) {
		autoneg = link.autoneg;
		advertising = link.advertising;
		speed = ethtool_cmd_speed(&link) == (__u32)SPEED_UNKNOWN ?
			-1 : (long)ethtool_cmd_speed(&link);
		duplex = link.duplex;
	}
	printf("NICWATCH add ifindex=%d name=%s driver=%s bus=%s tx=%ld rx=%ld "
	       "rx_usecs=%ld autoneg=%ld advertising=0x%lx speed=%ld duplex=%ld "
	       "up=%d\n",
	       ifindex, name, info.driver, info.bus_info, tx, rx, usecs,
	       autoneg, advertising, speed, duplex, up);
	return 0;
}

static void handle(int fd, struct nlmsghdr *nh)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	const char *name = NULL;
	struct rtattr *rta;

	if (ifi->ifi_index <= 0 || ifi->ifi_index >= MAX_IFINDEX)
		return;
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == IFLA_IFNAME)
			name = RTA_DATA(rta);

	if (nh->nlmsg_type == RTM_NEWLINK && name && !seen[ifi->ifi_index]) {
		seen[ifi->ifi_index] = 1;
		strncpy(names[ifi->ifi_index], name, IFNAMSIZ - 1);
		report(fd, ifi->ifi_index, name);
	} else if (nh->nlmsg_type == RTM_DELLINK && seen[ifi->ifi_index]) {
		seen[ifi->ifi_index] = 0;
		printf("NICWATCH del ifindex=%d name=%s\n", ifi->ifi_index,
		       names[ifi->ifi_index]);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK,
				    .nl_groups = RTMGRP_LINK };
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} dump = {
		.nh = { .nlmsg_len = sizeof(dump), .nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	static char buf[1 << 16];
	int nl, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Any socket carries ethtool ioctls; AF_UNIX needs no IP stack. */
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (argc > 2 && !strcmp(argv[1], "show")) {
		if (argc > 3)
			snprintf(up_drivers, sizeof(up_drivers), ",%s,", argv[3]);
		if (fd < 0 || !if_nametoindex(argv[2])) {
			printf("NICWATCH error: no interface %s\n", argv[2]);
			return 1;
		}
		return report(fd, if_nametoindex(argv[2]), argv[2]) ? 1 : 0;
	}
	if (argc > 1)
		snprintf(up_drivers, sizeof(up_drivers), ",%s,", argv[1]);
	nl = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (nl < 0 || fd < 0 || bind(nl, (struct sockaddr *)&addr, sizeof(addr))) {
		perror("NICWATCH error: socket");
		return 1;
	}
	if (send(nl, &dump, sizeof(dump), 0) < 0) {
		perror("NICWATCH error: RTM_GETLINK");
		return 1;
	}
	printf("NICWATCH ready\n");
	for (;;) {
		ssize_t n = recv(nl, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS: events were lost; the host sees it as a miss. */
			printf("NICWATCH error: recv: %s\n", strerror(errno));
			continue;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n);
		     nh = NLMSG_NEXT(nh, n))
			if (nh->nlmsg_type == RTM_NEWLINK ||
			    nh->nlmsg_type == RTM_DELLINK)
				handle(fd, nh);
	}
}
