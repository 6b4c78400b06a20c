// The sampling engine: a profiler-owned C thread (immune to Go's GC pauses,
// never a managed thread, all signals blocked) that every interval does
// SuspendRuntime -> EnumThreads -> DoStackSnapshot per thread ->
// ResumeRuntime, then merges each stack (root first) into that thread's
// sampling tree. The CLR is suspended only while stacks are copied into a
// preallocated buffer; name resolution and merging happen after the resume.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "vb.h"

typedef HRESULT (*Suspend_t)(void *);
typedef HRESULT (*EnumThreads_t)(void *, IUnknown **);
typedef HRESULT (*Next_t)(void *, ULONG, ThreadID *, ULONG *);
typedef ULONG (*Release_t)(void *);
typedef HRESULT (*Snapshot_t)(void *, ThreadID, void *, uint32_t, void *, uint8_t *, uint32_t);
typedef HRESULT (*GetThreadInfo_t)(void *, ThreadID, uint32_t *);

#define MAXFRAMES (1u << 20) // frames of all threads in one tick
#define MAXTHREADS 4096

static pthread_t thread;
static int running, stop;
static FunctionID *frames;       // all stacks of one tick, leaf first
static struct { ThreadID tid; uint32_t off, n; } stacks[MAXTHREADS];
static uint32_t nframes;
int64_t vb_samples_taken;
int64_t vb_suspended_ns, vb_suspend_wait_ns; // runtime stopped; waiting for SuspendRuntime

static int64_t mono(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// sampler-owned map ThreadID -> sampling tree
static struct { ThreadID tid; vb_thread *t; } trees[MAXTHREADS * 4];

static vb_thread *tree_for(ThreadID tid) {
	size_t cap = sizeof trees / sizeof trees[0];
	size_t i = (tid >> 4) % cap;
	for (size_t k = 0; k < cap; k++, i = (i + 1) % cap) {
		if (trees[i].tid == tid) return trees[i].t;
		if (trees[i].tid == 0) {
			uint32_t os = 0;
			VCALL(vb_info, INFO_GetThreadInfo, GetThreadInfo_t)(vb_info, tid, &os);
			vb_thread *t = vb_thread_new((int32_t)os, tid);
			if (!t) return 0;
			trees[i].tid = tid;
			trees[i].t = t;
			return t;
		}
	}
	return 0;
}

static HRESULT on_frame(FunctionID fid, uintptr_t ip, uintptr_t frame, uint32_t ctxsize, uint8_t *ctx, void *data) {
	(void)ip; (void)frame; (void)ctxsize; (void)ctx; (void)data;
	if (fid == 0) return S_OK; // a run of native frames
	if (nframes >= MAXFRAMES) return E_FAIL; // buffer full: stop this walk
	frames[nframes++] = fid;
	return S_OK;
}

static void sample_once(void) {
	int64_t t0 = mono();
	if (FAILED(VCALL(vb_info, INFO_SuspendRuntime, Suspend_t)(vb_info))) return;
	int64_t t1 = mono();
	uint32_t nstacks = 0;
	nframes = 0;
	IUnknown *e = 0;
	if (!FAILED(VCALL(vb_info, INFO_EnumThreads, EnumThreads_t)(vb_info, &e)) && e) {
		ThreadID tid;
		ULONG got = 0;
		while (nstacks < MAXTHREADS && VCALL(e, TENUM_Next, Next_t)(e, 1, &tid, &got) == S_OK && got == 1) {
			uint32_t off = nframes;
			HRESULT hr = VCALL(vb_info, INFO_DoStackSnapshot, Snapshot_t)(vb_info, tid, (void *)on_frame, 0, 0, 0, 0);
			if (FAILED(hr) && nframes == off) continue;
			stacks[nstacks].tid = tid;
			stacks[nstacks].off = off;
			stacks[nstacks].n = nframes - off;
			nstacks++;
		}
		VCALL(e, 2, Release_t)(e);
	}
	VCALL(vb_info, INFO_ResumeRuntime, Suspend_t)(vb_info);
	vb_samples_taken++;
	int64_t t2 = mono();
	vb_suspend_wait_ns += t1 - t0;
	vb_suspended_ns += t2 - t1;

	for (uint32_t s = 0; s < nstacks; s++) {
		vb_thread *t = tree_for(stacks[s].tid);
		if (!t) continue;
		vb_thread_cpu_ns(t); // keep the last CPU time seen, in case the thread dies
		if (stacks[s].n == 0) continue; // no managed frame: the thread is idle in native code
		t->samples++;
		t->root.incl_samples++;
		vb_node *p = &t->root;
		for (uint32_t i = stacks[s].n; i-- > 0;) { // root first
			vb_fn *f = vb_fn_for_function(frames[stacks[s].off + i]);
			if (!f) continue;
			vb_node *c = vb_node_child(t, p, f);
			if (!c) break;
			c->incl_samples++;
			p = c;
		}
		if (p != &t->root) p->excl_samples++;
	}
}

static void *loop(void *arg) {
	(void)arg;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		next.tv_nsec += vb_interval_ns % 1000000000;
		next.tv_sec += vb_interval_ns / 1000000000 + next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, 0) == EINTR) {}
		if (__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) break;
		sample_once();
		// After a long tick (a GC in the way), don't try to catch up.
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) next = now;
	}
	return 0;
}

int vb_sampler_start(void) {
	void *p = mmap(0, (size_t)MAXFRAMES * sizeof(FunctionID), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) return -1;
	frames = p;
	// The thread inherits a mask with every signal blocked: nothing (neither
	// CoreCLR nor Go) ever interrupts it.
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&thread, 0, loop, 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	if (rc != 0) return -1;
	running = 1;
	return 0;
}

// Stop and join: after this returns the sampler never touches the CLR again.
void vb_sampler_stop(void) {
	if (!running) return;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(thread, 0);
	running = 0;
	if (vb_samples_taken)
		vb_log("sampler: %ld ticks, mean %ld us to suspend, %ld us suspended", (long)vb_samples_taken,
			(long)(vb_suspend_wait_ns / vb_samples_taken / 1000), (long)(vb_suspended_ns / vb_samples_taken / 1000));
}
