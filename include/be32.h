/*
 * be32.h - a 32-bit field in a byte buffer, most significant byte first
 * (network byte order), as in the rdma_cm private data (cm.c) and the
 * control channel's header (ctrl.h, whose lengths the tests forge).
 */
#ifndef RB_BE32_H
#define RB_BE32_H

#include <stdint.h>

/* p[0..3] = v, big-endian. */
static inline void be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The big-endian value in p[0..3]. */
static inline uint32_t be32_get(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif
