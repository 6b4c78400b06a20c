// Clocks: the profile's time origin (TSC, monotonic and wall clock read
// together at Initialize) and the monotonic nanoseconds the cold paths time
// themselves with, and a thread join bounded in time. The hot path reads the
// TSC itself (vb_rdtsc, vb.h).
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include "vb.h"

uint64_t vb_tsc_start, vb_mono_start_ns, vb_realtime_start_ns;

// now_ns is clock c's time in ns, -1 when it cannot be read.
static int64_t now_ns(clockid_t c) {
	struct timespec ts;
	if (clock_gettime(c, &ts) != 0) return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
int64_t vb_mono_ns(void) { return now_ns(CLOCK_MONOTONIC); }
int64_t vb_self_cpu_ns(void) { return now_ns(CLOCK_THREAD_CPUTIME_ID); }

// vb_cpu_clock is the clock of thread tid's CPU time, another thread's too
// (CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED over its kernel id).
clockid_t vb_cpu_clock(int32_t tid) { return (clockid_t)((~(unsigned)tid) << 3) | 6; }

int64_t vb_cpu_ns_of(int32_t tid) { return tid > 0 ? now_ns(vb_cpu_clock(tid)) : -1; }
uint64_t vb_tsc_now(void) { return vb_rdtsc(); }

void vb_clock_start(void) {
	vb_tsc_start = vb_rdtsc();
	vb_mono_start_ns = (uint64_t)now_ns(CLOCK_MONOTONIC);
	vb_realtime_start_ns = (uint64_t)now_ns(CLOCK_REALTIME);
}

// vb_join_within joins t, waiting at most ms (< 0: for ever): 0 once
// joined, -1 when t still runs (the sampling engines' stop at a crash,
// whose thread may wait on what the crashing thread holds).
int vb_join_within(pthread_t t, int ms) {
	if (ms < 0) {
		pthread_join(t, 0);
		return 0;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
	return pthread_timedjoin_np(t, 0, &ts) == 0 ? 0 : -1;
}
