// Clocks: the profile's time origin (TSC, monotonic and wall clock read
// together at Initialize) and the monotonic nanoseconds the cold paths time
// themselves with. The hot path reads the TSC itself (vb_rdtsc, vb.h).
#include <time.h>
#include "vb.h"

uint64_t vb_tsc_start, vb_mono_start_ns, vb_realtime_start_ns;

static int64_t now_ns(clockid_t c) {
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
int64_t vb_mono_ns(void) { return now_ns(CLOCK_MONOTONIC); }
uint64_t vb_tsc_now(void) { return vb_rdtsc(); }

void vb_clock_start(void) {
	vb_tsc_start = vb_rdtsc();
	vb_mono_start_ns = (uint64_t)now_ns(CLOCK_MONOTONIC);
	vb_realtime_start_ns = (uint64_t)now_ns(CLOCK_REALTIME);
}
