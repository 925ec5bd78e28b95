// SPDX-License-Identifier: GPL-2.0-only
// A C workload for the symbol tests: a few call levels, a static helper
// that -O2 inlines, a libc call through the PLT, and a function pointer.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

#ifdef REBUILT
/* Built with -DREBUILT after recording: moves every function, so old
 * addresses land in other functions of the new binary. */
__attribute__((noinline)) unsigned long padding(unsigned long n)
{
	unsigned long s = n;
	for (int i = 0; i < 64; i++)
		s = s * 33 + (unsigned long)i;
	return s;
}
#endif

static inline unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x5bd1e995UL;
	return x ^ (x >> 15);
}

__attribute__((noinline)) unsigned long leaf_loop(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += mix(i);
	return s;
}

__attribute__((noinline)) unsigned long copy_work(unsigned long n)
{
	char a[4096], b[4096];
	unsigned long s = 0;
	memset(a, (int)n, sizeof(a));
	for (unsigned long i = 0; i < n; i++) {
		memcpy(b, a, sizeof(b));
		s += (unsigned char)b[i % sizeof(b)];
	}
	return s;
}

__attribute__((noinline)) unsigned long middle(unsigned long n, unsigned long (*f)(unsigned long))
{
	return f(n) + leaf_loop(n / 4);
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 40;
	for (unsigned long r = 0; r < rounds; r++) {
		sink += middle(2000000, leaf_loop);
		sink += middle(20000, copy_work);
	}
	printf("%lu\n", sink);
	return 0;
}
