// busyloop.h: what sigcost.c and tick.c share: a clock read in ns and the
// busy loop whose CPU time the signals disturb.
#ifndef BUSYLOOP_H
#define BUSYLOOP_H
#include <stdint.h>
#include <time.h>

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
#endif
