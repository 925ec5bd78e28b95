// SPDX-License-Identifier: GPL-2.0-only
// The live symbol tests' workload: `live_work user SECONDS` spins in
// leaf_spin() called through middle_call(); `live_work kernel SECONDS`
// reads /dev/zero (time in the kernel); `live_work ready SECONDS` prints
// "ready" once every library is mapped, then spins as `user`. SECONDS are
// of CPU time (so the number of cpu-clock samples does not depend on the
// load of the machine).
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static char buf[1 << 16];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void leaf_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

__attribute__((noinline)) void middle_call(unsigned long n)
{
	leaf_spin(n);
	sink++;
}

__attribute__((noinline)) void kernel_reads(int fd)
{
	if (read(fd, buf, sizeof(buf)) < 0)
		sink++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "user";
	double secs = argc > 2 ? atof(argv[2]) : 1.0;
	double end = now() + secs;
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	if (strcmp(mode, "ready") == 0) {
		puts("ready");
		fflush(stdout);
	}
	while (now() < end) {
		if (strcmp(mode, "kernel") == 0)
			kernel_reads(fd);
		else
			middle_call(100000);
	}
	return 0;
}
