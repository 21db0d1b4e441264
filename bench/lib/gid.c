/*
 * gid.c - the GID choice as a pure function of a port's GID table, and the
 * sysfs reader of a GID's type and netdev (rules in gid.h).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "gid.h"

static bool is_zero(const uint8_t g[16])
{
	static const uint8_t zero[16];
	return memcmp(g, zero, 16) == 0;
}

static bool is_link_local(const uint8_t g[16])
{
	return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

static bool is_v4mapped(const uint8_t g[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(g, pfx, 12) == 0;
}

int gid_score(const struct rb_gid_cand *c)
{
	if (is_zero(c->gid))
		return -1;
	return (c->type == 2 ? 4 : 0) + (is_link_local(c->gid) ? 0 : 2) +
	       (is_v4mapped(c->gid) ? 1 : 0);
}

static bool fits(const struct rb_gid_cand *c, const struct rb_gid_want *w)
{
	if (w && w->has_ip && memcmp(c->gid, w->ip, 16) != 0)
		return false;
	if (w && w->netdev[0] && strcmp(c->netdev, w->netdev) != 0)
		return false;
	return true;
}

int gid_rank(const struct rb_gid_cand *c, size_t n, const struct rb_gid_want *w, unsigned *ties)
{
	int best = -1, best_score = -1;

	*ties = 0;
	for (size_t i = 0; i < n; i++) {
		int s = gid_score(&c[i]);
		if (s < 0 || !fits(&c[i], w))
			continue;
		if (s > best_score || (s == best_score && c[i].index < c[best].index)) {
			best = (int)i;
			best_score = s;
		}
	}
	if (best < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (fits(&c[i], w) && gid_score(&c[i]) == best_score)
			(*ties)++;
	return best;
}

/* First line of path into buf without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int gid_sysfs_attrs(const char *root, const char *dev, unsigned port, int i, uint8_t *type,
		    char netdev[RB_NETDEV_LEN])
{
	char path[512], line[RB_NETDEV_LEN];

	netdev[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s/ports/%u/gid_attrs/types/%d", root, dev, port, i);
	if (read_line(path, line, sizeof(line)))
		return -1;
	/* the kernel's names (drivers/infiniband/core/cache.c gid_type_str) */
	*type = strcmp(line, "RoCE v2") == 0 ? 2 : strstr(line, "RoCE v1") ? 1 : 0;
	snprintf(path, sizeof(path), "%s/%s/ports/%u/gid_attrs/ndevs/%d", root, dev, port, i);
	if (read_line(path, line, sizeof(line)) == 0)
		snprintf(netdev, RB_NETDEV_LEN, "%s", line);
	return 0;
}

int gid_parse_ip(const char *addr, uint8_t out[16])
{
	struct in_addr v4;

	if (inet_pton(AF_INET6, addr, out) == 1)
		return 0;
	if (inet_pton(AF_INET, addr, &v4) != 1)
		return -1;
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, &v4, 4);
	return 0;
}
