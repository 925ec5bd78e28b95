// SPDX-License-Identifier: GPL-2.0-only
// Two programs from one source, built without PIE with -DSPIN=alpha_spin
// and -DSPIN=gamma_spin: the same code at the same addresses, with other
// names (and build ids). Under `setarch -R` (no address randomization)
// their samples have the same raw call chains, which resolve to different
// symbols: what the columnar reader's memo of raw chains must not mix up
// (across processes, and in one process across an exec). `twin [PROGRAM
// ARGS...]` spins for 0.3 s of its CPU time (not wall time: the samples of
// each twin do not depend on how much of a CPU a busy machine gives it),
// then execs PROGRAM if given.
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) void SPIN(volatile unsigned long *n)
{
	struct timespec start, now;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
	do {
		for (int i = 0; i < 100000; i++)
			(*n)++;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000L + now.tv_nsec - start.tv_nsec < 300000000L);
}

int main(int argc, char **argv)
{
	volatile unsigned long n = 0;

	SPIN(&n);
	if (argc > 1)
		execv(argv[1], argv + 1);
	return 0;
}
