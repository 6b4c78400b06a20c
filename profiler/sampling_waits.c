// Waits. A thread that is not running uses no CPU time, so its CPU ticks
// stop: what it waits on (a lock, a join, I/O, a sleep) would never be
// sampled, where the suspending sampler's wall-clock ticks see it (time a
// tracer counts as the waiting method's). Every WAIT_NS the drain reads
// every thread's CPU clock; one that used less than WAIT_RAN_NS since the
// last check has waited the whole time, and gets one tick (WAIT_TAG, the
// intervals of wall time it stands for in si_value): the handler walks its
// stack as any tick's, which wakes it once. While it keeps waiting, no
// signal more: its stack cannot change, so each later check adds the
// intervals waited to that same stack (wait_add). When it runs again, the
// next wait is walked anew. A thread whose waiting stack has no managed
// frame (idle in native code: the finalizer, an idle I/O thread) is left
// out, as DoStackSnapshot leaves it out of the suspending sampler's. So a
// profile's samples are each thread's CPU time plus the time it waited
// with managed frames on its stack, one per interval; the profile says how
// much of it was waiting (wait_samples). VBENCH_CPU_WAITS=0: CPU time only.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sampling.h"

#define WAIT_NS 10000000
#define WAIT_RAN_NS 200000 // the wait tick's own handler takes tens of microseconds
// A held thread (its stack walked, no signal since) that ran at all since
// its walk ended (slot.cpu_end) has left that wait: returning from one wait
// into the next (a Join, then a Sleep) takes far less than WAIT_RAN_NS, and
// the second wait's time would go to the first's stack. Its window is then
// walked anew at once, with the window's weight. The margin covers the end
// of the wait tick's own handler (its return and sigreturn).
#define WAIT_HELD_RAN_NS 5000
static int64_t wait_last_ns, wait_rem_ns;
int64_t vb_cpu_wait_runnable; // checks that found a thread runnable, waiting for a CPU: no wait

// runnable reports whether thread tid is runnable (running, or on a run
// queue waiting for a CPU): its state in /proc/self/task/<tid>/stat is R.
// A thread that used no CPU since the last check either waited (blocked: a
// lock, a join, I/O, a sleep; state S or D) or was preempted and waits for
// a CPU (more runnable threads than cores). The second is the machine's
// load, not the program's wait: weighed as a wait, each such stack stood
// for tens of intervals of wall time, and split at 4 threads on a busy
// machine had ~100 such stacks a run for ~290 intervals of CPU, its shares
// 0.24 to 0.35 against 0.3. (The run-queue time schedstat gives is added
// only once the thread runs again: no use here.) Read by the drain, only
// for threads that did not run, or used little CPU (check_directed).
int vb_cpu_runnable(int32_t tid) {
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')'); // the name may hold spaces and parentheses
	return p && p[1] == ' ' && p[2] == 'R';
}

// wait_add adds w intervals waited to r's held stack, leaf to root.
static void wait_add(record *r, uint32_t w) {
	if (!r->wait_leaf || !r->tree) return;
	for (vb_node *n = r->wait_leaf; n; n = n->parent) n->incl_samples += w;
	r->wait_leaf->excl_samples += w;
	if (vb_tl_on) vb_tl_sample(r->tree, vb_rdtsc(), r->wait_leaf, w); // the time waited up to now
	if (__atomic_load_n(&vb_kernel_on, __ATOMIC_RELAXED)) vb_kernel_add(r->tree, r->wait_leaf, w);
	if (r->wait_line) r->wait_line->w += w;
	for (uint32_t k = 0; k < r->nwait_sites; k++) r->wait_sites[k]->w += w;
	r->tree->samples += w;
	vb_cpu_wait_weight += w;
}

void vb_cpu_waits(void) {
	int64_t now = vb_mono_ns();
	if (!wait_last_ns) wait_last_ns = now;
	int64_t step = now - wait_last_ns;
	if (vb_cpu_waits_off || step < WAIT_NS) return;
	wait_last_ns = now;
	int64_t due = (step + wait_rem_ns) / vb_interval_ns;
	wait_rem_ns = (step + wait_rem_ns) % vb_interval_ns;
	uint32_t w = due > MAX_WEIGHT ? MAX_WEIGHT : (uint32_t)due;
	for (int i = 0; i < vb_cpu_nused; i++) {
		record *r = vb_cpu_used[i];
		if (!r->tid || !r->armed || !r->slots) continue;
		int64_t cpu = vb_cpu_ns_of(r->tid);
		if (cpu < 0) continue;
		int64_t ran = r->wait_cpu < 0 ? WAIT_RAN_NS : cpu - r->wait_cpu;
		r->wait_cpu = cpu;
		if (ran >= WAIT_RAN_NS) {
			r->wait = WAIT_NONE; // it ran: its CPU ticks cover it
			r->wait_owed = 0;
			continue;
		}
		if (r->wait == WAIT_HELD && ran >= WAIT_HELD_RAN_NS) r->wait = WAIT_NONE; // it woke, and waits again: walk the new wait now
		// Runnable for most of the time since the last read: it waited for
		// a CPU, not for the program. No wait tick, and a held wait ends
		// (it was woken).
		if (vb_cpu_runnable(r->tid)) {
			r->wait = WAIT_NONE;
			r->wait_owed = 0;
			vb_cpu_wait_runnable++;
			continue;
		}
		uint32_t wt = w;
		if (wt == 0) continue;
		switch (r->wait) {
		case WAIT_NONE: {
			if (vb_cpu_send_tick(r->tid, WAIT_TAG, wt) == 0) {
				r->wait = WAIT_SENT;
				r->wait_owed = 0;
				vb_cpu_wait_sent++;
			}
			break;
		}
		case WAIT_SENT:
			r->wait_owed = r->wait_owed + wt > MAX_WEIGHT ? MAX_WEIGHT : r->wait_owed + wt;
			break;
		case WAIT_HELD:
			wait_add(r, wt);
			break;
		}
	}
}
