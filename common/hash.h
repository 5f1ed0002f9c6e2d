/* hash.h - 64-bit FNV-1a, for names and paths in open-addressing tables.
 *
 * Not for anything adversarial: the names come from the program and the
 * user's own environment.  Chain hs_hash__bytes to hash several parts.
 */
#ifndef HPCSHIM_COMMON_HASH_H
#define HPCSHIM_COMMON_HASH_H

#include <stdint.h>

#define HS_HASH_INIT 14695981039346656037ull /* FNV-1a 64-bit offset basis */

static inline uint64_t hs_hash__str(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull; /* FNV prime */
	return h;
}

static inline uint64_t hs_hash__u64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 1099511628211ull;
	return h;
}

#endif
