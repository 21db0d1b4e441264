/*
 * zipf.h - key choice for the key-value workloads of case study 2 (Kalia et
 * al., ATC 2016, Section 4.3.1): uniform, or Zipf with exponent theta (0.99
 * in HERD's and MICA's skewed workloads). Pure, unit-tested in
 * tests/unit/test_mica.c against the expected frequencies.
 *
 * Zipf(n, theta): rank k in 1..n is drawn with probability k^-theta / H,
 * H = sum over j of j^-theta. The sampler is rejection-inversion
 * (W. Hormann, G. Derflinger, "Rejection-inversion to generate variates
 * from monotone discrete distributions", ACM TOMACS 6(3), 1996): exact, O(1)
 * expected time per draw, no table (so n may be the paper's 8M keys per
 * thread). Key number = rank - 1: key 0 is the hottest.
 *
 * Random numbers: splitmix64 (G. Steele, D. Lea, C. Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014); one state per thread.
 */
#ifndef RDMA_BENCH_ZIPF_H
#define RDMA_BENCH_ZIPF_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t zipf_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double zipf_u01(uint64_t *state)
{
	return (double)(zipf_splitmix64(state) >> 11) * 0x1.0p-53;
}

struct zipf {
	uint64_t n;
	double theta;
	double h_x1, h_n, s;   /* the sampler's constants (zipf.c) */
};

/*
 * Prepare Zipf over n >= 1 keys with exponent theta > 0 (theta = 1
 * included). Returns 0, or -1 for n == 0 or theta <= 0 (or NaN).
 */
int zipf_init(struct zipf *z, uint64_t n, double theta);
/* A key number in 0..n-1 (0 the most frequent). */
uint64_t zipf_next(const struct zipf *z, uint64_t *state);
/* A key number uniform in 0..n-1 (n >= 1; multiply-shift, bias below 2^-32 for n < 2^32). */
static inline uint64_t zipf_uniform(uint64_t n, uint64_t *state)
{
	return (uint64_t)(((unsigned __int128)zipf_splitmix64(state) * n) >> 64);
}

/*
 * The key-choice items shared by the --kv and --drtm lists of rdma_seq.
 * zipf_parse_dist: NAME=V is dist=uniform|zipf (*zipf 0 or 1) or theta=X
 * (0 < X < 10, *theta). Returns 1 when NAME is one of them and V was
 * stored, 0 when NAME is neither (the caller goes on), -1 with err naming
 * FLAG, the value and the fix when V is bad.
 */
int zipf_parse_dist(const char *flag, const char *name, const char *v, uint64_t *zipf,
		    double *theta, char *err, size_t errlen);

/*
 * zipf_list_each: ITEM(item, cfg, err, errlen) on each comma-separated item
 * of LIST (a copy of at most 255 characters; ITEM may write into it).
 * 0, or -1 at the first item that fails (err from ITEM), or when LIST is
 * too long (err naming FLAG and the limit).
 */
int zipf_list_each(const char *flag, const char *list,
		   int (*item)(char *item, void *cfg, char *err, size_t errlen), void *cfg,
		   char *err, size_t errlen);

#endif /* RDMA_BENCH_ZIPF_H */
