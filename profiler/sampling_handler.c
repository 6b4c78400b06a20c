// The sampling engine's SIGPROF handler: the interrupted thread's frames,
// walked by frame pointers from the signal context into its ring (see
// sampling.c). Async-signal-safe: no allocation, no lock; its only system
// calls are gettid, once per thread, and clock_gettime in a wait tick's and
// a directed tick's (a timeline's stamp is rdtsc, no call).
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "sampling.h"

#define SCAN_WAIT 1024 // words above the stack pointer searched for a frame record (see scan_frame)

__thread int32_t vb_cpu_my_tid __attribute__((tls_model("initial-exec")));
int64_t vb_cpu_handler_ns, vb_cpu_handler_n; // with VBENCH_CPU_TIMING=1: time in the handler
// ... and its distribution: calls by their TSC ticks, 64 a bucket (the
// median is what a preempted handler does not move).
#define HBUCKETS 4096
#define HSHIFT 6
static int64_t handler_hist[HBUCKETS];

// is_record reports whether f looks like a frame record above address
// floor: on the stack, its return address no stack address, its saved
// frame pointer another such record higher up, links times over (the last
// one's may be 0: the thread's first frame).
static int is_record(uintptr_t f, uintptr_t floor, uintptr_t lo, uintptr_t hi, int links) {
	for (int k = 0; k < links; k++) {
		if (f <= floor || !vb_on_stack(f, lo, hi)) return 0;
		uintptr_t next = ((uintptr_t *)f)[0], ret = ((uintptr_t *)f)[1];
		if (ret == 0 || (ret >= lo && ret < hi)) return 0;
		if (next == 0) return k == links - 1;
		floor = f, f = next;
	}
	return 1;
}

// scan_frame finds the frame record a walk starts at when RBP is none: code
// built without frame pointers (glibc: a thread waiting in a futex or a
// sleep is interrupted there, RBP zero or a scratch value) saves its
// caller's RBP among its own words when it uses the register, and the
// nearest word above the stack pointer that points to a frame record
// (is_record, four links deep) is the innermost frame that keeps one
// (libcoreclr's, built with frame pointers): the frames between are native
// code the drain would drop anyway. 0: none within SCAN_WAIT words.
static uintptr_t scan_frame(uintptr_t sp, uintptr_t lo, uintptr_t hi) {
	for (uintptr_t a = sp; a < sp + 8 * SCAN_WAIT && vb_on_stack(a, lo, hi); a += 8) {
		uintptr_t w = *(uintptr_t *)a;
		if (is_record(w, a, lo, hi, 4)) return w;
	}
	return 0;
}

void vb_cpu_on_prof(int sig, siginfo_t *si, void *ucv) {
	(void)sig;
	int saved = errno;
	uint64_t t0 = vb_cpu_timing ? vb_rdtsc() : 0;
	if (!vb_cpu_my_tid) vb_cpu_my_tid = (int32_t)syscall(SYS_gettid);
	record *r = find(vb_cpu_my_tid, 0);
	if (!r || !r->slots) goto out;
	uint32_t h = r->head;
	if (h - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >= NSLOTS) {
		__atomic_fetch_add(&r->full, 1, __ATOMIC_RELAXED);
		goto out;
	}
	slot *s = &r->slots[h % NSLOTS];
	// The timeline's stamp: rdtsc, an instruction (no system call, no
	// lock, nothing the vDSO's clock_gettime could fall back to a syscall
	// for), ~11 ns here, on the TSC the GCs and the tracing timeline use;
	// calibrated against CLOCK_MONOTONIC at the write. Only with a timeline.
	s->tsc = vb_tl_on ? vb_rdtsc() : 0;
	const ucontext_t *uc = ucv;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t bp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	uintptr_t lo = __atomic_load_n(&r->lo, __ATOMIC_RELAXED), hi = __atomic_load_n(&r->hi, __ATOMIC_ACQUIRE);
	s->weight = 1;
	if (si->si_code == SI_TIMER && si->si_overrun > 0) s->weight += (uint32_t)si->si_overrun;
	uint32_t n = 1, flags = 0;
	// Ours: a directed tick's (its timer's value), a wait's (the drain's sigqueue).
	int tag = si->si_code == SI_QUEUE || si->si_code == SI_TIMER ? si->si_value.sival_int >> 16 : 0;
	if (tag == WAIT_TAG) s->weight = (uint32_t)si->si_value.sival_int & 0xffff, flags = WALK_WAIT;
	if (tag == DIRECTED_TAG) {
		// Weighed by the CPU the thread used since its last tick (see
		// direct): clock_gettime is async-signal-safe, and the one system
		// call a wait tick's walk already makes. Less than half an
		// interval: no sample, the CPU carried to the next tick.
		int64_t cpu = vb_self_cpu_ns(), ival = vb_interval_ns;
		int64_t due = cpu < 0 ? 0 : (cpu - r->tick_cpu + ival / 2) / ival;
		if (due <= 0) {
			__atomic_store_n(&r->empty, r->empty + 1, __ATOMIC_RELAXED); // the drain reads it (see check_directed)
			goto out;
		}
		if (due > MAX_WEIGHT) due = MAX_WEIGHT;
		r->tick_cpu += due * ival;
		if (cpu - r->tick_cpu > MAX_WEIGHT * ival) r->tick_cpu = cpu; // never a weight beyond one signal's
		s->weight = (uint32_t)due;
		flags = WALK_DIRECTED;
	}
	s->ip[0] = ip;
	memset(s->top, 0, sizeof s->top);
	s->nhid = 0;
	s->sp0 = sp;
	s->bp0 = bp;
	if (!hi) {
		flags |= WALK_NORANGE;
		r->seen_sp = sp;
	} else if (!vb_on_stack(sp, lo, hi)) {
		flags |= WALK_OFFSTACK;
	} else {
		for (int i = 0; i < TOPWORDS && vb_on_stack(sp + 8 * i, lo, hi); i++) s->top[i] = ((uintptr_t *)sp)[i];
		if (bp < sp || !vb_on_stack(bp, lo, hi)) { // RBP is no frame pointer of this stack
			uintptr_t f = scan_frame(sp, lo, hi);
			if (f) bp = f, flags |= WALK_SCANNED;
		}
		vb_fpwalk w = {.lo = lo, .hi = hi, .floor = sp, .bp = bp};
		int end;
		while ((end = vb_fp_next(&w)) == VB_FP_FRAME) {
			s->ip[n < LEAD ? n : LEAD + (n - LEAD) % RING] = w.ret;
			if (n < NUP) {
				if (w.rec + 16 + 8 * UPWORDS <= hi)
					for (int k = 0; k < UPWORDS; k++) s->up[n][k] = ((uintptr_t *)w.rec)[2 + k];
				else
					memset(s->up[n], 0, sizeof s->up[n]);
			}
			// An OSR method's frame record links straight to its caller's
			// caller: the real one lies higher (see fpwalk.h).
			uintptr_t c;
			if (n < LEAD && s->nhid < NHIDDEN && vb_fp_osr_caller(&w, &c)) {
				s->hid_at[s->nhid] = n;
				s->hid_ret[s->nhid++] = c;
			}
			n++;
		}
		flags |= end == VB_FP_ROOTED ? WALK_ROOTED : WALK_BROKEN;
	}
	s->seen = n;
	if (__atomic_load_n(&vb_kernel_on, __ATOMIC_RELAXED)) flags |= WALK_KERNEL;
	s->flags = flags;
	// clock_gettime is async-signal-safe; only a wait tick's walk reads it.
	s->cpu_end = tag == WAIT_TAG ? vb_self_cpu_ns() : 0;
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
out:
	if (vb_cpu_timing) {
		uint64_t d = vb_rdtsc() - t0;
		__atomic_fetch_add(&vb_cpu_handler_ns, (int64_t)d, __ATOMIC_RELAXED); // TSC ticks; converted when logged
		uint64_t b = d >> HSHIFT;
		__atomic_fetch_add(&handler_hist[b < HBUCKETS ? b : HBUCKETS - 1], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&vb_cpu_handler_n, 1, __ATOMIC_RELAXED);
	}
	errno = saved;
}

// vb_cpu_handler_log logs, with VBENCH_CPU_TIMING=1, the handler's time.
void vb_cpu_handler_log(void) {
	if (vb_cpu_timing && vb_cpu_handler_n) {
		uint64_t ticks = vb_tsc_now() - vb_tsc_start;
		double ns_per_tick = ticks ? (double)(vb_mono_ns() - (int64_t)vb_mono_start_ns) / (double)ticks : 0;
		int64_t half = 0, med = 0;
		for (int b = 0; b < HBUCKETS; b++)
			if ((half += handler_hist[b]) * 2 >= vb_cpu_handler_n) {
				med = ((int64_t)b << HSHIFT) + (1 << (HSHIFT - 1)); // the bucket's middle
				break;
			}
		vb_log("cpu sampler: handler (walk and record) %ld calls, mean %.0f ns, median %.0f ns, %.1f frames a walk", (long)vb_cpu_handler_n,
			(double)vb_cpu_handler_ns / (double)vb_cpu_handler_n * ns_per_tick, (double)med * ns_per_tick, vb_cpu_signals ? (double)vb_cpu_frames / (double)vb_cpu_signals : 0);
	}
}
