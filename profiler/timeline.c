// The timeline's cold half (VBENCH_TIMELINE=1: tracing, the sampling
// engines): its settings, a thread's buffer made at its first hooked call
// (or sample), the runtime's events on
// their threads (JIT compilations, exceptions thrown, thread exits; GCs are
// gc.c's). The hooks' half is in hot.c; the events are read at the write
// (timeline.go), never while a hook runs them.
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "vb.h"

vb_tl_jit vb_tl_jits[VB_TL_JITS];
vb_tl_exc vb_tl_excs[VB_TL_EXCS];
uint64_t vb_tl_njit, vb_tl_nexc;

// vb_tl_configure takes the settings (from Go) and turns the minimum
// duration into TSC ticks, calibrated over 2 ms against CLOCK_MONOTONIC.
void vb_tl_configure(int on, int64_t min_ns, int64_t cap) {
	vb_tl_on = on;
	if (!on) return;
	vb_tl_cap = (uint64_t)cap;
	vb_tl_left = cap;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t t0 = vb_rdtsc();
	int64_t ns;
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		ns = (int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
	} while (ns < 2000000);
	double per_ns = (double)(vb_rdtsc() - t0) / (double)ns;
	vb_tl_min_ticks = (uint64_t)((double)min_ns * per_ns);
}

// vb_tl_new reserves a thread's buffer for the whole cap (address space
// only: pages are committed as events reach them); NULL when it cannot,
// and the thread then has no timeline.
vb_tl *vb_tl_new(int32_t os_tid) {
	size_t n = sizeof(vb_tl) + vb_tl_cap * sizeof(vb_tl_ev);
	void *p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) return 0;
	vb_tl *l = p;
	l->ev = (vb_tl_ev *)((char *)p + sizeof(vb_tl));
	l->os_tid = os_tid;
	l->start_tsc = vb_rdtsc();
	return l;
}

_Static_assert(sizeof(vb_tl_smp) == sizeof(vb_tl_ev), "a sample takes an event's place");

// vb_tl_sample appends one sample to t's timeline; past the cap it is
// counted as dropped. Off the hot path (the drain, suspend-sampling's
// thread: one at a time), so a plain count takes the cap exactly.
void vb_tl_sample(vb_thread *t, uint64_t ts, vb_node *leaf, uint64_t weight) {
	if (!t || !leaf || leaf == &t->root) return;
	if (!t->tl && !(t->tl = vb_tl_new(t->os_tid))) return;
	vb_tl *l = t->tl;
	if (__atomic_load_n(&vb_tl_left, __ATOMIC_RELAXED) <= 0) {
		l->dropped++;
		return;
	}
	__atomic_fetch_sub(&vb_tl_left, 1, __ATOMIC_RELAXED);
	vb_tl_smp *e = (vb_tl_smp *)l->ev + l->n;
	e->ts = ts, e->leaf = leaf, e->weight = weight;
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
}

void vb_tl_enter_slow(vb_fn *fn) {
	if (vb_thread_attach() != &vb_nothread) vb_tl_enter(fn);
}

void vb_tl_thread_exit(vb_thread *t) {
	if (t->tl) __atomic_store_n(&t->tl->end_tsc, vb_rdtsc(), __ATOMIC_RELEASE);
}

static __thread uint64_t jit_t0 __attribute__((tls_model("initial-exec")));

void vb_tl_jit_started(FunctionID fid) {
	(void)fid;
	jit_t0 = vb_rdtsc();
}

// Each compilation's record is filled, then published by its own flag (the
// tid, set last): slots are taken with an atomic add, in any order.
void vb_tl_jit_finished(FunctionID fid) {
	uint64_t t1 = vb_rdtsc(), t0 = jit_t0;
	jit_t0 = 0;
	if (!t0) return;
	uint64_t i = __atomic_fetch_add(&vb_tl_njit, 1, __ATOMIC_RELAXED);
	if (i >= VB_TL_JITS) return;
	vb_tl_jit *j = &vb_tl_jits[i];
	j->t0 = t0;
	j->t1 = t1;
	j->fn = vb_fn_for_function(fid);
	__atomic_store_n(&j->tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
}

void vb_tl_exception(ObjectID obj) {
	uint64_t ts = vb_rdtsc();
	ClassID c = 0;
	if (FAILED(VCALL(vb_info, INFO_GetClassFromObject, GetClassFromObject_t)(vb_info, obj, &c))) c = 0;
	uint64_t i = __atomic_fetch_add(&vb_tl_nexc, 1, __ATOMIC_RELAXED);
	if (i >= VB_TL_EXCS) return;
	vb_tl_exc *e = &vb_tl_excs[i];
	e->ts = ts;
	e->cls = c;
	__atomic_store_n(&e->tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
}

// vb_tl_n is how many events a thread has kept (its hooks may still run).
uint64_t vb_tl_n(vb_tl *l) { return __atomic_load_n(&l->n, __ATOMIC_ACQUIRE); }

// vb_aev_n is how many allocations a thread's table has kept in its timeline.
uint64_t vb_aev_n(vb_atab *t) { return __atomic_load_n(&t->nev, __ATOMIC_ACQUIRE); }
