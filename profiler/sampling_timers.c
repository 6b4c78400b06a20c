// The sampling engine's ticks: a timer per thread, on its CPU clock or,
// for a busy thread, directed (a wall-clock timer the handler weighs).
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "sampling.h"

// Ticks start from a POSIX CPU-clock timer per thread, which the kernel
// checks only at its scheduler tick (4 ms at 250 Hz): at a shorter interval
// a signal stands for several (its si_overrun), fewer independent samples
// than the interval asks (at 1 ms, a quarter). A thread the drain sees busy
// (a signal with an overrun: it ran for 2 intervals between two ticks) is
// moved to directed ticks: its CPU-clock timer is replaced by a wall-clock
// one (CLOCK_MONOTONIC, an hrtimer, exact to the interval) that sends
// SIGPROF to that thread alone, every interval of wall time, tagged
// DIRECTED_TAG in si_value. The handler weighs such a tick by its own CPU
// clock: the intervals of CPU the thread used since its last tick (rounded:
// half an interval short counts now, the next one carries less, so the
// weights add up to its CPU time within half an interval); a tick that
// finds less than half an interval is empty (no slot), its CPU carried to
// the next. A thread that waits for a CPU is not ticked meanwhile: the
// kernel re-arms a periodic timer only once its pending signal is taken,
// when the thread runs again. No thread of ours wakes for a directed tick:
// before, the drain thread woke every interval to read each busy thread's
// CPU clock and send it its tick (rt_tgsigqueueinfo), ~15-20 us of a
// wake-up on this VM for every sample (docs/notebook/measurements.md, issue 41).
// A wall-clock timer does interrupt a thread that blocks, every interval,
// and each of those ticks is empty: the drain (every DRAIN_NS) gives a
// directed thread whose ticks since its last pass were more often empty
// than not its CPU-clock timer back (see check_directed). A thread that
// waits for a CPU (more threads than cores) but runs in slices of a few
// intervals stays directed: an empty tick at each return to a CPU, a
// signal for nothing, beside the slice's samples.
#define MOVE_BACK_NS 256000000
#define MAX_DIRECTED 256     // threads with directed ticks at once
int vb_cpu_ticks_timer, vb_cpu_ticks_directed, vb_cpu_ticks_back; // threads given a timer, directed, back on a timer
int64_t vb_cpu_directed_sent, vb_cpu_back_idle;                   // directed ticks taken (slots drained); threads moved back as idle
int64_t vb_cpu_kept_runnable;                                     // passes that kept a directed thread that ran little because it was runnable
int64_t vb_cpu_tick_reads;  // CPU clocks read by the directed threads' window checks
int vb_cpu_directed_off;    // VBENCH_CPU_TIMERS=1: timers only
int vb_cpu_directed_always; // VBENCH_CPU_DIRECTED=1: every thread directed from its registration (tests)
int vb_cpu_ndirected;
pid_t vb_cpu_self_pid; // and uid: a wait tick's sender, read once at start
uid_t vb_cpu_self_uid;

// phase is a random point of an interval, ns in [0, interval): where a
// thread's ticks start (a mix of the TSC and the thread id).
static int64_t phase(int32_t tid) {
	uint64_t x = vb_rdtsc() ^ ((uint64_t)(uint32_t)tid * 0x9E3779B97F4A7C15ull);
	x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33;
	return (int64_t)(x % (uint64_t)vb_interval_ns);
}

// start_timer makes a timer on clock c that sends SIGPROF to thread tid
// alone, si_value tag<<16, every interval from a random point of the first
// (every thread's ticks would otherwise fall at the same times of it in
// every run, an interval after it starts, and what it runs in its first
// interval, argument parsing before a 10 ms kernel, would never be
// sampled, in any run); 0: made.
static int start_timer(clockid_t c, int32_t tid, int tag, timer_t *t) {
	struct sigevent ev = {0};
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev.sigev_value.sival_int = tag << 16;
	ev._sigev_un._tid = tid;
	if (timer_create(c, &ev, t) != 0) {
		vb_cpu_timer_fail++;
		return -1;
	}
	int64_t first = 1 + phase(tid);
	struct itimerspec its = {{vb_interval_ns / 1000000000, vb_interval_ns % 1000000000}, {first / 1000000000, first % 1000000000}};
	timer_settime(*t, 0, &its, 0);
	return 0;
}

// arm starts r's ticks on thread tid: a timer on the thread's CPU clock.
int vb_cpu_lost; // the program took SIGPROF: no more ticks (see check_handler)

void vb_cpu_arm(record *r, int32_t tid) {
	r->directed = 0;
	r->busy = 0;
	r->armed = 0; // until its timer runs: a failed timer_create leaves no stale one to delete
	if (vb_cpu_lost) return;
	if (start_timer(vb_cpu_clock(tid), tid, 0, &r->timer) != 0) return;
	vb_cpu_ticks_timer++;
	r->armed = 1;
}

// direct moves r's ticks from its CPU-clock timer (if any) to a wall-clock
// timer whose ticks the handler weighs; 1: the thread is directed.
int vb_cpu_direct(record *r) {
	r->busy = 0;
	if (r->directed) return 1;
	if (vb_cpu_lost || vb_cpu_directed_off || __atomic_load_n(&vb_cpu_ndirected, __ATOMIC_RELAXED) >= MAX_DIRECTED) return 0;
	int64_t cpu = vb_cpu_ns_of(r->tid);
	if (cpu < 0) return 0;
	// What the handler reads, set before the first tick can come.
	r->tick_cpu = cpu - phase(r->tid); // a random phase, as the timer's first expiry
	r->pass_empty = __atomic_load_n(&r->empty, __ATOMIC_RELAXED);
	r->pass_taken = 0;
	r->win_cpu = r->pass_cpu = cpu;
	r->win_start = r->pass_ns = vb_mono_ns();
	timer_t t;
	if (start_timer(CLOCK_MONOTONIC, r->tid, DIRECTED_TAG, &t) != 0) return 0;
	if (r->armed) timer_delete(r->timer);
	r->timer = t;
	r->armed = r->directed = 1;
	__atomic_fetch_add(&vb_cpu_ndirected, 1, __ATOMIC_RELAXED);
	vb_cpu_ticks_directed++;
	return 1;
}

// send_tick sends thread tid SIGPROF, to it alone, tagged (a wait's) and
// carrying the intervals it stands for; 0: sent.
int vb_cpu_send_tick(int32_t tid, int tag, uint32_t weight) {
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = SIGPROF;
	si.si_code = SI_QUEUE;
	si.si_pid = vb_cpu_self_pid;
	si.si_uid = vb_cpu_self_uid;
	si.si_value.sival_int = tag << 16 | (int)weight;
	return (int)syscall(SYS_rt_tgsigqueueinfo, vb_cpu_self_pid, tid, SIGPROF, &si);
}

// disarm stops r's ticks (a signal already sent is still handled: the
// handler finds the record, and the drain takes the slot).
void vb_cpu_disarm(record *r) {
	if (!r->armed) return;
	timer_delete(r->timer);
	if (r->directed) {
		r->directed = 0;
		__atomic_fetch_sub(&vb_cpu_ndirected, 1, __ATOMIC_RELAXED);
	}
	r->armed = 0;
}

// check_directed, at every pass, gives directed thread r its CPU-clock
// timer back when it stopped running: its ticks since the last pass more
// often empty than not (at least 2), less than an eighth of a CPU used
// since then, or less than a quarter over the last window (see
// MOVE_BACK_NS). Counting empty ticks over the pass, not idle ticks in a
// row (tried first): a tick wakes a blocked thread, which then often ran
// an eighth of an interval or more before it blocked again (the runtime's
// waits spin first), enough to break the row, and mandelbrot's pool
// threads stayed directed, woken every interval, for hundreds of ms after
// they had stopped working. Its timer keeps its period, an
// interval, whatever share of a CPU it gets: paced to that share (tried),
// a thread that runs in slices of a few ms got a tick for two intervals of
// CPU as often as one for none, and its stacks fell by a third for the
// same weight (mandelbrot's workers on 2 cores); each tick it did not run
// half an interval for costs it a signal instead, at most one each time it
// is scheduled in (the kernel re-arms the timer when the thread takes the
// pending signal).
void vb_cpu_check_directed(record *r, int64_t now) {
	if (!r->directed) return;
	uint32_t empty = __atomic_load_n(&r->empty, __ATOMIC_RELAXED), taken = r->pass_taken;
	empty -= r->pass_empty;
	r->pass_empty += empty;
	r->pass_taken = 0;
	int back = !vb_cpu_directed_always && empty >= 2 && empty > taken, idle = back;
	if (!back) {
		int64_t cpu = vb_cpu_ns_of(r->tid);
		vb_cpu_tick_reads++;
		if (cpu < 0) return; // gone: its record is disarmed when the runtime says so
		int64_t ran = cpu - r->pass_cpu, step = now - r->pass_ns;
		r->pass_cpu = cpu, r->pass_ns = now;
		if (!vb_cpu_directed_always) {
			if (ran * 8 < step) back = idle = 1;
			if (now - r->win_start >= MOVE_BACK_NS) {
				back |= (cpu - r->win_cpu) * 4 < now - r->win_start;
				r->win_cpu = cpu, r->win_start = now;
			}
		}
	}
	// A runnable thread that ran little was preempted (more runnable threads
	// than cores), not idle: its ticks wake nothing. Moved back, the
	// kernel's 250 Hz check weighed its ticks 4 and more, and split's 4
	// threads at 1 ms on a busy machine got ~800 ticks for ~2,100
	// intervals of CPU, their shares 0.24-0.32 against 0.3 (directed:
	// 0.285-0.315, as perf's).
	if (back && vb_cpu_runnable(r->tid)) back = 0, vb_cpu_kept_runnable++;
	if (!back) return;
	vb_cpu_back_idle += idle;
	vb_cpu_disarm(r);
	vb_cpu_arm(r, r->tid);
	if (r->armed) {
		vb_cpu_ticks_timer--; // the same thread, back on a timer: counted apart
		vb_cpu_ticks_back++;
	}
}
