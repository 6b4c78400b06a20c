// What timing a call adds to the time measured for it: the TSC ticks
// between a timed frame's two clock reads around an empty body, through
// the functions the instrumented code and the hooks' C path call
// (vb_itime, vb_ileave), without the managed code around them: the least
// a timed frame can measure (snapshot.go's clockFloor).
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include "vb.h"

#define FLOOR_N 2001

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

// On a thread of its own: vb_tls_thread is its, with no tree to disturb.
static void *measure(void *arg) {
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, 0); // no runtime's signal lands here
	static uint64_t d[FLOOR_N];
	static vb_fn fn;
	vb_thread t = {0};
	vb_node c = {0};
	t.root.hint = t.root.hint2 = &vb_no_child;
	t.rng = 0x9E3779B97F4A7C15ull;
	c.fn = &fn, c.parent = &t.root, c.hint = c.hint2 = &vb_no_child;
	vb_tls_thread = &t;
	for (int i = 0; i < FLOOR_N; i++) {
		t.active = &c;
		uint64_t before = c.incl_ticks;
		vb_itime(&c);
		vb_ileave(&c, &fn);
		d[i] = c.incl_ticks - before;
	}
	vb_tls_thread = &vb_nothread;
	qsort(d, FLOOR_N, sizeof d[0], cmp_u64);
	*(uint64_t *)arg = d[FLOOR_N / 2];
	return 0;
}

// vb_timed_floor returns the median of FLOOR_N such frames, in TSC ticks
// (0 when the thread cannot be made).
uint64_t vb_timed_floor(void) {
	uint64_t ticks = 0;
	pthread_t th;
	if (pthread_create(&th, 0, measure, &ticks) != 0) return 0;
	pthread_join(th, 0);
	return ticks;
}
