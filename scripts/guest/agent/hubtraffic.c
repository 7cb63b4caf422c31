// SPDX-License-Identifier: GPL-2.0
/*
 * hubtraffic: keep frames flowing between the NICs on a QEMU-internal hub.
 *
 *   hubtraffic [DRIVER,...] [INTERVAL_US] [REPORT_MS]
 *
 * Sends one broadcast frame with the local experimental ethertype 0x88B5
 * out of every running interface of the named drivers (default e1000)
 * every INTERVAL_US microseconds (default 1000), counts the frames of
 * that ethertype each interface receives, and every REPORT_MS
 * milliseconds (default 250) prints one line per interface:
 *
 *   HUBTRAFFIC ifindex=3 name=eth0 bus=0000:00:04.0 state=up sent=N
 *              recv=M errors=E
 *
 * (one line); state=down while the interface is not up and running, and
 * one last line with state=gone when it has disappeared. The counters
 * are per interface (ifindex), from the moment it was first seen.
 *
 * Interfaces come and go under it (the host hot-unplugs NICs while this
 * runs), so the set is re-read every 100 ms, and a send that fails
 * because the device went away (ENXIO, ENODEV, ENETDOWN, ...) is
 * counted in errors=, never fatal. An errno outside that list is printed
 * once ("HUBTRAFFIC note: ..."), and still counted, not fatal.
 *
 * The NICs' only peer is a QEMU hub port (-netdev hubport), which
 * forwards a frame to the hub's other ports and nowhere else: nothing
 * sent here leaves QEMU. A frame an interface receives was therefore
 * sent by another NIC on the hub; the payload's magic tells ours from
 * anything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#define ETH_P_HUB 0x88B5 /* IEEE 802 local experimental ethertype 1 */
#define MAX_NICS 64
#define SCAN_US 100000
#define MAX_BURST 8 /* catch-up frames per interface after a late wake-up */
#define MAGIC "HUBTRAFFIC"

struct nic {
	int ifindex; /* 0: free entry */
	char name[IFNAMSIZ];
	char bus[ETHTOOL_BUSINFO_LEN];
	unsigned char mac[ETH_ALEN];
	int running;
	int present; /* seen in the latest scan */
	unsigned long sent, recv, errors;
};

static struct nic nics[MAX_NICS];
static char drivers[256] = ",e1000,";
static int ioctl_fd;
static int noted[256]; /* errnos already printed as unexpected */

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static struct nic *find(int ifindex)
{
	int i;

	for (i = 0; i < MAX_NICS; i++)
		if (nics[i].ifindex == ifindex)
			return &nics[i];
	return NULL;
}

static void report(const struct nic *n, const char *state)
{
	printf("HUBTRAFFIC ifindex=%d name=%s bus=%s state=%s sent=%lu recv=%lu "
	       "errors=%lu\n", n->ifindex, n->name, n->bus, state, n->sent,
	       n->recv, n->errors);
}

/* Fill @n from the interface @name, if one of our drivers runs it. */
static int probe(const char *name, struct nic *n)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	char key[64];

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	ifr.ifr_data = (void *)&info;
	if (ioctl(ioctl_fd, SIOCETHTOOL, &ifr) < 0)
		return -1;
	snprintf(key, sizeof(key), ",%s,", info.driver);
	if (!strstr(drivers, key))
		return -1;
	memcpy(n->bus, info.bus_info, sizeof(n->bus));
	n->bus[sizeof(n->bus) - 1] = 0;
	if (ioctl(ioctl_fd, SIOCGIFHWADDR, &ifr) < 0)
		return -1;
	memcpy(n->mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	if (ioctl(ioctl_fd, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	/* IFF_RUNNING: up with carrier, so a frame sent is a frame on the wire */
	n->running = (ifr.ifr_flags & (IFF_UP | IFF_RUNNING)) ==
		     (IFF_UP | IFF_RUNNING);
	return 0;
}

/* Re-read the interfaces: new ones get a counter, vanished ones a last line. */
static void scan(void)
{
	struct if_nameindex *list = if_nameindex(), *p;
	int i;

	if (!list)
		return; /* out of memory or netlink trouble: try again later */
	for (i = 0; i < MAX_NICS; i++)
		nics[i].present = 0;
	for (p = list; p->if_index; p++) {
		struct nic probed = { 0 }, *n;

		if (probe(p->if_name, &probed))
			continue;
		n = find(p->if_index);
		if (!n) {
			n = find(0);
			if (!n)
				continue; /* table full: this one is not counted */
			memset(n, 0, sizeof(*n));
			n->ifindex = p->if_index;
		}
		strncpy(n->name, p->if_name, IFNAMSIZ - 1);
		memcpy(n->bus, probed.bus, sizeof(n->bus));
		memcpy(n->mac, probed.mac, ETH_ALEN);
		n->running = probed.running;
		n->present = 1;
	}
	if_freenameindex(list);
	for (i = 0; i < MAX_NICS; i++)
		if (nics[i].ifindex && !nics[i].present) {
			report(&nics[i], "gone");
			nics[i].ifindex = 0;
		}
}

static int expected_send_error(int err)
{
	/* the device is going or gone, or its queue is full for a moment */
	return err == ENXIO || err == ENODEV || err == ENETDOWN ||
	       err == ENOBUFS || err == EAGAIN || err == ENETUNREACH ||
	       err == EINVAL;
}

static void send_one(int fd, struct nic *n)
{
	unsigned char frame[ETH_ZLEN];
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_HUB),
		.sll_ifindex = n->ifindex,
		.sll_halen = ETH_ALEN,
	};
	struct ether_header *eh = (struct ether_header *)frame;
	uint32_t index = htonl(n->ifindex), seq = htonl(n->sent);

	memset(frame, 0, sizeof(frame));
	memset(eh->ether_dhost, 0xff, ETH_ALEN);
	memcpy(eh->ether_shost, n->mac, ETH_ALEN);
	eh->ether_type = htons(ETH_P_HUB);
	memcpy(frame + sizeof(*eh), MAGIC, strlen(MAGIC));
	memcpy(frame + sizeof(*eh) + 12, &index, 4);
	memcpy(frame + sizeof(*eh) + 16, &seq, 4);
	memset(to.sll_addr, 0xff, ETH_ALEN);
	if (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&to,
		   sizeof(to)) == (ssize_t)sizeof(frame)) {
		n->sent++;
		return;
	}
	n->errors++;
	if (!expected_send_error(errno) && errno < 256 && !noted[errno]) {
		noted[errno] = 1;
		printf("HUBTRAFFIC note: send on %s: %s\n", n->name,
		       strerror(errno));
	}
}

/* Count every frame of ours that is waiting, per receiving interface. */
static void drain(int fd)
{
	unsigned char frame[2048];

	for (;;) {
		struct sockaddr_ll from;
		socklen_t len = sizeof(from);
		ssize_t got = recvfrom(fd, frame, sizeof(frame), 0,
				       (struct sockaddr *)&from, &len);
		struct nic *n;

		if (got < 0)
			return; /* EAGAIN: drained; anything else: next round */
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (got < (ssize_t)(sizeof(struct ether_header) + 20) ||
		    memcmp(frame + sizeof(struct ether_header), MAGIC,
			   strlen(MAGIC)))
			continue;
		n = find(from.sll_ifindex);
		if (n && from.sll_ifindex)
			n->recv++;
	}
}

int main(int argc, char **argv)
{
	uint64_t interval = 1000, period = 250000, last_send, next_scan,
		 next_report;
	int fd, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		snprintf(drivers, sizeof(drivers), ",%s,", argv[1]);
	if (argc > 2 && atol(argv[2]) > 0)
		interval = atol(argv[2]);
	if (argc > 3 && atol(argv[3]) > 0)
		period = atol(argv[3]) * 1000ULL;
	/* Unbound: one socket sends and receives on every interface. */
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_HUB));
	ioctl_fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0 || ioctl_fd < 0) {
		printf("HUBTRAFFIC error: socket: %s\n", strerror(errno));
		return 1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	printf("HUBTRAFFIC started interval_us=%llu report_ms=%llu\n",
	       (unsigned long long)interval,
	       (unsigned long long)(period / 1000));
	last_send = now_us();
	next_scan = last_send;
	next_report = last_send + period;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_us(), due, wake;

		if (now >= next_scan) {
			scan();
			next_scan = now + SCAN_US;
		}
		/*
		 * Without high-resolution timers the guest wakes up once a
		 * tick: send the frames that fell due since, up to a burst.
		 */
		due = (now - last_send) / interval;
		if (due) {
			uint64_t burst = due > MAX_BURST ? MAX_BURST : due;
			uint64_t k;

			for (i = 0; i < MAX_NICS; i++)
				for (k = 0; nics[i].ifindex && nics[i].running &&
					    k < burst; k++)
					send_one(fd, &nics[i]);
			last_send = due > MAX_BURST ? now : last_send + due * interval;
		}
		drain(fd);
		if (now >= next_report) {
			for (i = 0; i < MAX_NICS; i++)
				if (nics[i].ifindex)
					report(&nics[i], nics[i].running ? "up" : "down");
			next_report = next_report + period > now ?
				      next_report + period : now + period;
		}
		wake = last_send + interval;
		if (next_scan < wake)
			wake = next_scan;
		if (next_report < wake)
			wake = next_report;
		now = now_us();
		poll(&pfd, 1, wake > now ? (int)((wake - now + 999) / 1000) : 0);
		drain(fd);
	}
}
