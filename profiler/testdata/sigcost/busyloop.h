// busyloop.h: what sigcost.c and tick.c share: a clock read in ns, the busy
// loop whose CPU time the signals disturb, and a directed tick's send.
#ifndef BUSYLOOP_H
#define BUSYLOOP_H
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t ns(clockid_t c) {
	struct timespec t;
	clock_gettime(c, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static volatile uint64_t sink;

// busy_loop runs n steps of a linear congruential generator on the calling
// thread and returns the CPU time they took (CLOCK_THREAD_CPUTIME_ID).
static int64_t busy_loop(uint64_t n) {
	int64_t c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
	return ns(CLOCK_THREAD_CPUTIME_ID) - c0;
}

// send_tick sends thread tid of process pid SIGPROF, to it alone, as the
// drain thread sent a directed tick (rt_tgsigqueueinfo).
static void send_tick(pid_t pid, int tid) {
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = SIGPROF;
	si.si_code = SI_QUEUE;
	si.si_pid = pid;
	si.si_uid = getuid();
	syscall(SYS_rt_tgsigqueueinfo, pid, tid, SIGPROF, &si);
}
#endif
