// sigcost: what one SIGPROF costs the thread it lands on (the kernel's
// delivery and sigreturn, an empty handler), and what the drain thread's
// per-tick system calls cost it: another thread's CPU clock read, an
// rt_tgsigqueueinfo, and a 1 ms clock_nanosleep wake-up. Each in CPU time
// (CLOCK_THREAD_CPUTIME_ID) of the thread that pays it, so a loaded machine
// moves it less than wall time. Not part of the build (testdata):
//   cc -O2 -pthread -o /tmp/sigcost profiler/testdata/sigcost/sigcost.c && /tmp/sigcost
// Prints one line per repetition; docs/notebook/measurements.md gives the results.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "busyloop.h"

static volatile int target_tid, done, go;
static int64_t work_cpu;
static void on_prof(int s, siginfo_t *si, void *uc) { (void)s, (void)si, (void)uc; }

#define WORK 400000000ull
static void *worker(void *a) {
	(void)a;
	target_tid = (int)syscall(SYS_gettid);
	while (!go) {}
	work_cpu = busy_loop(WORK);
	done = 1;
	return 0;
}

// one run of the busy loop, signalled every gap_ns of wall time (0: never);
// returns the worker's CPU ns, and the signals sent in *sent.
static int64_t run(int64_t gap_ns, long *sent, int64_t *send_ns, int64_t *read_ns, long *reads) {
	pthread_t t;
	done = go = 0;
	target_tid = 0;
	pthread_create(&t, 0, worker, 0);
	while (!target_tid) {}
	go = 1;
	*sent = *reads = 0;
	*send_ns = *read_ns = 0;
	pid_t pid = getpid();
	clockid_t cc = (clockid_t)((~(unsigned)target_tid) << 3) | 6;
	while (!done) {
		if (!gap_ns) {
			usleep(1000);
			continue;
		}
		struct timespec g = {0, gap_ns};
		nanosleep(&g, 0);
		int64_t a = ns(CLOCK_THREAD_CPUTIME_ID);
		struct timespec ct;
		clock_gettime(cc, &ct);
		int64_t b = ns(CLOCK_THREAD_CPUTIME_ID);
		if (done) break;
		send_tick(pid, target_tid);
		int64_t c = ns(CLOCK_THREAD_CPUTIME_ID);
		*read_ns += b - a, (*reads)++;
		*send_ns += c - b, (*sent)++;
	}
	pthread_join(t, 0);
	return work_cpu;
}

int main(void) {
	struct sigaction sa = {0};
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, 0);
	int64_t r0 = ns(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < 1000; i++) ns(CLOCK_THREAD_CPUTIME_ID);
	double tread = (double)(ns(CLOCK_THREAD_CPUTIME_ID) - r0) / 1001;
	for (int rep = 0; rep < 5; rep++) {
		long sent, reads;
		int64_t send_ns, read_ns;
		int64_t quiet = run(0, &sent, &send_ns, &read_ns, &reads);
		int64_t s0 = ns(CLOCK_THREAD_CPUTIME_ID);
		int64_t loud = run(100000, &sent, &send_ns, &read_ns, &reads); // every 0.1 ms
		int64_t drain_cpu = ns(CLOCK_THREAD_CPUTIME_ID) - s0;
		double wake = ((double)drain_cpu - (double)send_ns - (double)read_ns) / (double)sent;
		printf("rep %d: delivery %.2f us a signal (%ld signals, busy loop %.1f -> %.1f ms CPU); sender: clock read %.2f us, send %.2f us, wake-up and the rest %.2f us (a timing read %.2f us, included)\n",
			rep, ((double)loud - (double)quiet) / (double)sent / 1000, sent, quiet / 1e6, loud / 1e6,
			(double)read_ns / reads / 1000, (double)send_ns / sent / 1000, wake / 1000, tread / 1000);
	}
	return 0;
}
