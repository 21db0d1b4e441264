/*
 * zipf.c - Zipf key choice by rejection-inversion (bench/apps/kv/zipf.h names
 * the paper: Hormann and Derflinger, ACM TOMACS 1996). The continuous hat
 * h(x) = x^-theta over [0.5, n + 0.5] is inverted through its integral H;
 * a draw x rounds to k and is kept when it falls under the step of k's
 * probability, else tried again (acceptance above 0.9 for theta near 1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "zipf.h"

/* log1p(x) / x, with its series near 0 */
static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

/* expm1(x) / x, with its series near 0 */
static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

static double h(const struct zipf *z, double x)
{
	return exp(-z->theta * log(x));
}

/* H(x) = (x^(1-theta) - 1) / (1 - theta), log(x) at theta = 1 */
static double h_integral(const struct zipf *z, double x)
{
	double lx = log(x);
	return helper2((1 - z->theta) * lx) * lx;
}

static double h_integral_inverse(const struct zipf *z, double x)
{
	double t = x * (1 - z->theta);
	if (t < -1)
		t = -1;   /* rounding at the lower end */
	return exp(helper1(t) * x);
}

int zipf_init(struct zipf *z, uint64_t n, double theta)
{
	if (n == 0 || !(theta > 0))
		return -1;
	z->n = n;
	z->theta = theta;
	z->h_x1 = h_integral(z, 1.5) - 1;
	z->h_n = h_integral(z, (double)n + 0.5);
	z->s = 2 - h_integral_inverse(z, h_integral(z, 2.5) - h(z, 2));
	return 0;
}

uint64_t zipf_next(const struct zipf *z, uint64_t *state)
{
	for (;;) {
		double u = z->h_n + zipf_u01(state) * (z->h_x1 - z->h_n);
		double x = h_integral_inverse(z, u);
		double kd = floor(x + 0.5);
		if (kd < 1)
			kd = 1;
		else if (kd > (double)z->n)
			kd = (double)z->n;
		if (kd - x <= z->s || u >= h_integral(z, kd + 0.5) - h(z, kd))
			return (uint64_t)kd - 1;
	}
}

int zipf_parse_dist(const char *flag, const char *name, const char *v, uint64_t *zipf,
		    double *theta, char *err, size_t errlen)
{
	char *end;

	if (strcmp(name, "dist") == 0) {
		if (strcmp(v, "uniform") && strcmp(v, "zipf"))
			return rb_fail(err, errlen, "%s dist=%s: use uniform or zipf", flag, v);
		*zipf = strcmp(v, "zipf") == 0;
		return 1;
	}
	if (strcmp(name, "theta") != 0)
		return 0;
	*theta = strtod(v, &end);
	if (end == v || *end || !(*theta > 0 && *theta < 10))
		return rb_fail(err, errlen, "%s theta=%s: give a number in (0, 10), e.g. 0.99",
			       flag, v);
	return 1;
}

int zipf_list_each(const char *flag, const char *list,
		   int (*item)(char *item, void *cfg, char *err, size_t errlen), void *cfg,
		   char *err, size_t errlen)
{
	char buf[256], *save = NULL;

	if (strlen(list) >= sizeof(buf))
		return rb_fail(err, errlen, "%s: the list is longer than %zu characters", flag,
			       sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save))
		if (item(it, cfg, err, errlen))
			return -1;
	return 0;
}
