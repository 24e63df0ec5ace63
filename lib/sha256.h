/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256 (FIPS 180-4), freestanding, for deriving build-ids
 * (elf_buildid.c) the same way in the module, the tool and the tests.
 * The kernel's own lib/crypto SHA-256 differs in name and availability
 * from 5.10 to 7.x and is not built by every configuration; these few
 * lines are the same everywhere.  Hashes a few hundred bytes a file: no
 * attempt at speed.
 */
#ifndef MMAP3_SHA256_H
#define MMAP3_SHA256_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#define SHA256_DIGEST_BYTES	32

struct sha256 {
	__u32 h[8];
	__u64 len;		/* bytes fed */
	__u8 block[64];
};

static inline __u32 sha256_ror(__u32 x, unsigned int n)
{
	return x >> n | x << (32 - n);
}

static inline void sha256_block(struct sha256 *s, const __u8 *p)
{
	static const __u32 k[64] = {
		0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
		0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
		0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
		0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
		0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
		0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
		0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
		0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
		0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
		0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
		0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
	};
	__u32 w[64], v[8], t1, t2;
	unsigned int i;

	for (i = 0; i < 16; i++)
		w[i] = (__u32)p[4 * i] << 24 | (__u32)p[4 * i + 1] << 16 |
		       (__u32)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + w[i - 7] +
		       (sha256_ror(w[i - 15], 7) ^ sha256_ror(w[i - 15], 18) ^ w[i - 15] >> 3) +
		       (sha256_ror(w[i - 2], 17) ^ sha256_ror(w[i - 2], 19) ^ w[i - 2] >> 10);
	memcpy(v, s->h, sizeof(v));
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (sha256_ror(v[4], 6) ^ sha256_ror(v[4], 11) ^ sha256_ror(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + k[i] + w[i];
		t2 = (sha256_ror(v[0], 2) ^ sha256_ror(v[0], 13) ^ sha256_ror(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		s->h[i] += v[i];
}

static inline void sha256_init(struct sha256 *s)
{
	static const __u32 h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

static inline void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const __u8 *p = data;

	while (len) {
		size_t at = s->len % 64, n = 64 - at < len ? 64 - at : len;

		memcpy(s->block + at, p, n);
		s->len += n;
		p += n;
		len -= n;
		if (at + n == 64)
			sha256_block(s, s->block);
	}
}

static inline void sha256_final(struct sha256 *s, __u8 out[SHA256_DIGEST_BYTES])
{
	__u64 bits = s->len * 8;
	__u8 pad[72] = { 0x80 };
	size_t padlen = 64 - (s->len + 8) % 64, i;

	/* 0x80, zeros, then the length in bits, big-endian: whole blocks. */
	for (i = 0; i < 8; i++)
		pad[padlen + i] = (__u8)(bits >> (56 - 8 * i));
	sha256_update(s, pad, padlen + 8);
	for (i = 0; i < 32; i++)
		out[i] = (__u8)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

#endif /* MMAP3_SHA256_H */
