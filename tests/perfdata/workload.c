// SPDX-License-Identifier: GPL-2.0-only
// Workloads for the perf.data tests (tests/perfdata/recordings.py compiles
// and records them): `workload MODE [N]`.
//
//   sw       page faults, CPU time, short sleeps (context switches), pipe I/O
//   getppid  N getppid() calls (one tracepoint sample each)
//   rw       reads and writes that succeed and fail, by two processes
//   futex    four threads contending for one mutex (each first waits in
//            FUTEX_WAIT for the main thread's hold of it, whatever the load)
//   comm     a comm change (prctl) and a named thread in the middle of the run
//   rounds FILE N
//            sleeps until the `perf stat record` file FILE holds N STAT_ROUND
//            records (or 60 s passed): an interval run (-I) then has its
//            rounds however late perf's timer wakes it
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

// Spins for `ms` of the calling thread's CPU time, not wall time: the
// cpu-clock and task-clock samples a recording expects in each phase (e.g.
// before and after a comm change) are then taken however little of a CPU a
// busy machine gives the thread.
static void spin(long ms)
{
	struct timespec start, now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
	do {
		for (int i = 0; i < 10000; i++)
			sink += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
}

static void sw(void)
{
	size_t len = 8 << 20;
	char *p = malloc(len);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	free(p);
	spin(30);
	for (int i = 0; i < 10; i++)
		usleep(500);
	int fds[2];
	char buf[64] = "x";
	if (pipe(fds) == 0) {
		for (int i = 0; i < 20; i++) {
			if (write(fds[1], buf, sizeof(buf)) < 0 || read(fds[0], buf, sizeof(buf)) < 0)
				break;
		}
	}
}

static void rw(void)
{
	char buf[4096];
	pid_t child = fork();
	int fd = open("/etc/passwd", O_RDONLY);
	int out = open("/dev/null", O_WRONLY);
	for (int i = 0; i < (child == 0 ? 3 : 5); i++) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n > 0 && write(out, buf, n) < 0)
			break;
		lseek(fd, 0, SEEK_SET);
	}
	/* Failing calls: a bad fd, a write to a read-only fd. */
	if (read(-1, buf, 1) < 0 && write(fd, buf, 1) < 0 && read(fd, buf, 0) == 0)
		sink++;
	close(fd);
	close(out);
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t contenders[4];
static atomic_int arrived;

static void *contend(void *arg)
{
	contenders[(long)arg] = gettid();
	atomic_fetch_add(&arrived, 1);
	for (int i = 0; i < 20; i++) {
		pthread_mutex_lock(&lock);
		spin(1);
		pthread_mutex_unlock(&lock);
		usleep(100);
	}
	return NULL;
}

// True once thread `tid` sits in futex(2) (its /proc syscall line).
static int in_futex(pid_t tid)
{
	char path[64];
	long nr = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_futex;
}

// The main thread holds the lock until every contender waits for it in
// futex(2) (or 10 s passed): each is contended at least once, on any
// schedule; then they contend among themselves.
static void futex(void)
{
	pthread_t t[4];
	pthread_mutex_lock(&lock);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, contend, (void *)i);
	for (int waited = 0; waited < 10000; waited++) {
		int waiting = atomic_load(&arrived) == 4;
		for (int i = 0; waiting && i < 4; i++)
			waiting = in_futex(contenders[i]);
		if (waiting)
			break;
		usleep(1000);
	}
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

static void *named(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "worker-thread");
	spin(20);
	return NULL;
}

static void comm(void)
{
	spin(20);
	prctl(PR_SET_NAME, "second-name");
	spin(20);
	pthread_t t;
	pthread_create(&t, NULL, named, NULL);
	pthread_join(t, NULL);
}

// The number of PERF_RECORD_STAT_ROUND headers (type 77, misc 0, size 24)
// in `path`: no other record of a stat file holds those 8 bytes (as a
// counter value they would be 2^52 and more).
static int stat_rounds(const char *path)
{
	static const unsigned char round[8] = { 77, 0, 0, 0, 0, 0, 24, 0 };
	unsigned char buf[1 << 16];
	int n = 0;
	size_t have = 0, got;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	while ((got = fread(buf + have, 1, sizeof(buf) - have, f)) > 0) {
		have += got;
		size_t i = 0;
		for (; i + sizeof(round) <= have; i++)
			n += !memcmp(buf + i, round, sizeof(round));
		memmove(buf, buf + i, have - i);
		have -= i;
	}
	fclose(f);
	return n;
}

static void rounds(const char *path, long n)
{
	for (int waited = 0; waited < 6000 && stat_rounds(path) < n; waited++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sw";
	long n = argc > 2 ? atol(argv[2]) : 1000;
	if (!strcmp(mode, "sw"))
		sw();
	else if (!strcmp(mode, "getppid"))
		for (long i = 0; i < n; i++)
			getppid();
	else if (!strcmp(mode, "rw"))
		rw();
	else if (!strcmp(mode, "futex"))
		futex();
	else if (!strcmp(mode, "comm"))
		comm();
	else if (!strcmp(mode, "rounds") && argc > 3)
		rounds(argv[2], atol(argv[3]));
	else
		return 2;
	return 0;
}
