// The suspend-sampling engine: a profiler-owned C thread (immune to Go's GC pauses,
// never a managed thread, all signals blocked) that every interval does
// SuspendRuntime -> EnumThreads -> DoStackSnapshot per thread ->
// ResumeRuntime, then merges each stack (root first) into that thread's
// sampling tree. The CLR is suspended only while stacks are copied into a
// preallocated buffer; name resolution and merging happen after the resume.
//
// Leaves: CoreCLR stops a thread only at a GC safe point, often well after
// (and above) where its suspension first interrupted it, and never inside a
// method without one (a one-liner that calls nothing). interrupted.c notes
// where each thread was first interrupted; while the runtime is still
// suspended each walk is cut back to that point (the frames below the
// interrupted function's caller are dropped and the function put back), so
// a stack is the thread's stack as of the interruption, not as of the safe
// point. VBENCH_SAMPLING_SAFEPOINT_LEAVES=1 keeps the walks as CoreCLR gives
// them.
//
// Deep stacks: each stack keeps at most vb_max_stack frames (VBENCH_MAX_STACK,
// default 2^20). The walk goes leaf to root; its first half fills slots in
// order and the rest go round a ring, so a deeper stack keeps its leaf-most
// and root-most frames, and the frames between become one marker frame
// ("[vbench: frames elided]"): the leaf keeps its exclusive samples, the
// outer callers their place at the root, and the truncation is visible.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "vb.h"

// Whether interrupted leaves are put back: 1 yes, 0 not asked for, -1 the
// SIGRTMIN wrapper could not be installed (the profile says so).
int vb_leaf_recovery;

#define MAXTHREADS 4096

static pthread_t thread;
static int running, stop;
static FunctionID *frames; // all stacks of one tick, leaf first (VB_MAXFRAMES, reserved, touched as used)
// One stack of the tick: frames[off, off+n); when seen > n its middle was
// dropped: frames[off, off+lead) are the leaf-most, the ring after them the
// root-most (see on_frame).
typedef struct {
	ThreadID tid;
	uint32_t off, n, lead, ring, seen;
	// Leaf recovery (interrupted.c): what the thread's activations recorded,
	// where the walk's first frame stands (IP, stack pointer), the index of
	// the interrupted function's caller in the walk (-1: not found), and the
	// outcome: leaf-most frames to drop, a function to add below the rest.
	vb_interrupt q;
	uintptr_t leaf_ip, leaf_sp;
	int32_t caller_at;
	uint32_t drop;
	FunctionID leaf;
} stack_rec;
static stack_rec stacks[MAXTHREADS];
static stack_rec *cur; // the stack being walked
static uint32_t nframes;
uint32_t vb_max_stack = 1u << 20;
int64_t vb_stacks_elided; // stacks deeper than vb_max_stack
int64_t vb_stacks_dropped; // stacks not taken: the tick's buffer was full
int64_t vb_stacks_failed;  // stack walks that failed part way (not merged)
// The marker standing for elided frames; Go sets its name (profile.ElidedFrames).
vb_fn vb_elided_fn = {.id = UINT32_MAX, .user = 1, .name = "", .module = "", .assembly = "", .type_name = ""};
int64_t vb_samples_taken;
int64_t vb_suspended_ns, vb_suspend_wait_ns; // runtime stopped; waiting for SuspendRuntime


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

// Frame j of the walk (0: the leaf) goes to slot j while j < lead, then round
// a ring of `ring` slots: whatever the depth, the last `ring` frames seen
// (the root-most) are kept. A stack no deeper than lead+ring lies in order.
// With leaf recovery the walk also notes where its first frame stands and
// which frame is the interrupted function's caller (its function, at the
// stack pointer that caller has once its callee returned).
#define CONTEXT_RSP 0x98 // in CONTEXT (AMD64; CoreCLR's PAL keeps the layout)
static HRESULT on_frame(FunctionID fid, uintptr_t ip, uintptr_t frame, uint32_t ctxsize, uint8_t *ctx, void *data) {
	(void)frame; (void)data;
	if (fid == 0) return S_OK; // a run of native frames
	uint32_t j = cur->seen++;
	if (ctx && ctxsize >= CONTEXT_RSP + 8) {
		uintptr_t sp;
		memcpy(&sp, ctx + CONTEXT_RSP, sizeof sp);
		if (j == 0) {
			cur->leaf_ip = ip;
			cur->leaf_sp = sp;
		}
		if (cur->caller_at < 0 && ((sp == cur->q.caller_sp[0] && fid == cur->q.caller_fn[0]) || (sp == cur->q.caller_sp[1] && fid == cur->q.caller_fn[1])))
			cur->caller_at = (int32_t)j;
	}
	frames[cur->off + (j < cur->lead ? j : cur->lead + (j - cur->lead) % cur->ring)] = fid;
	return S_OK;
}

// merge adds frame fid under p and returns the child, p itself when the
// function is unknown, or NULL when the arena is full.
static vb_node *merge(vb_thread *t, vb_node *p, vb_fn *f) {
	if (!f) return p;
	vb_node *c = vb_node_child(t, p, f);
	if (c) c->incl_samples++;
	return c;
}

static void sample_once(void) {
	int kernel = __atomic_load_n(&vb_kernel_on, __ATOMIC_ACQUIRE);
	int64_t t0 = vb_mono_ns();
	uint32_t gen = vb_leaf_recovery > 0 ? vb_interrupts_open() : 0;
	if (FAILED(VCALL(vb_info, INFO_SuspendRuntime, Suspend_t)(vb_info))) {
		if (gen) vb_interrupts_close();
		return;
	}
	int64_t t1 = vb_mono_ns();
	uint64_t tick_tsc = vb_tl_on ? vb_rdtsc() : 0; // the timeline's stamp: every stack of this tick
	uint32_t nstacks = 0;
	nframes = 0;
	IUnknown *e = 0;
	if (!FAILED(VCALL(vb_info, INFO_EnumThreads, EnumThreads_t)(vb_info, &e)) && e) {
		ThreadID tid;
		ULONG got = 0;
		while (nstacks < MAXTHREADS && VCALL(e, TENUM_Next, Next_t)(e, 1, &tid, &got) == S_OK && got == 1) {
			uint32_t room = VB_MAXFRAMES - nframes, cap = room < vb_max_stack ? room : vb_max_stack;
			if (cap < 2) {
				vb_stacks_dropped++;
				continue;
			}
			cur = &stacks[nstacks];
			*cur = (stack_rec){.tid = tid, .off = nframes, .lead = cap / 2, .ring = cap - cap / 2, .caller_at = -1};
			uint32_t flags = 0;
			if (gen) {
				uint32_t os = 0;
				if (!FAILED(VCALL(vb_info, INFO_GetThreadInfo, GetThreadInfo_t)(vb_info, tid, &os))) vb_interrupt_read(gen, (int32_t)os, &cur->q);
				flags = COR_PRF_SNAPSHOT_REGISTER_CONTEXT; // the frames' stack pointers
			}
			HRESULT hr = VCALL(vb_info, INFO_DoStackSnapshot, Snapshot_t)(vb_info, tid, (void *)on_frame, flags, 0, 0, 0);
			// A failed walk may have stopped part way, with the leaf-side
			// frames only: merged from the root it would graft them there.
			if (FAILED(hr)) {
				if (cur->seen) vb_stacks_failed++;
				continue;
			}
			cur->n = cur->seen < cap ? cur->seen : cap;
			if (gen && cur->seen) {
				// Frames to drop must lie in order, among the leaf-most kept.
				if (cur->caller_at >= (int32_t)cur->lead) cur->caller_at = -1;
				cur->leaf = vb_interrupted_leaf(&cur->q, cur->leaf_ip, cur->leaf_sp, cur->caller_at, &cur->drop);
			}
			nframes += cur->n;
			nstacks++;
		}
		VCALL(e, UNK_Release, Release_t)(e);
	}
	if (gen) vb_interrupts_close();
	VCALL(vb_info, INFO_ResumeRuntime, Suspend_t)(vb_info);
	vb_samples_taken++;
	int64_t t2 = vb_mono_ns();
	vb_suspend_wait_ns += t1 - t0;
	vb_suspended_ns += t2 - t1;

	for (uint32_t s = 0; s < nstacks; s++) {
		vb_thread *t = tree_for(stacks[s].tid);
		if (!t) continue;
		vb_thread_cpu_ns(t); // keep the last CPU time seen, in case the thread dies
		if (stacks[s].n == 0) continue; // no managed frame: the thread is idle in native code
		t->samples++;
		t->root.incl_samples++;
		stack_rec *r = &stacks[s];
		FunctionID *fr = frames + r->off;
		vb_node *p = &t->root;
		if (r->seen <= r->n) {
			for (uint32_t i = r->n; i-- > r->drop && p;) p = merge(t, p, vb_fn_for_function(fr[i])); // root first
		} else {
			vb_stacks_elided++;
			for (uint32_t j = r->seen; j-- > r->seen - r->ring && p;) // the root-most frames, root first
				p = merge(t, p, vb_fn_for_function(fr[r->lead + (j - r->lead) % r->ring]));
			if (p) p = merge(t, p, &vb_elided_fn);
			for (uint32_t i = r->lead; i-- > r->drop && p;) p = merge(t, p, vb_fn_for_function(fr[i]));
		}
		if (r->leaf && p) p = merge(t, p, vb_fn_for_function(r->leaf));
		if (p && p != &t->root) p->excl_samples++;
		if (vb_tl_on) vb_tl_sample(t, tick_tsc, p, 1);
		if (kernel) vb_kernel_add(t, p, 1);
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

int vb_suspend_sampling_start(void) {
	void *p = mmap(0, (size_t)VB_MAXFRAMES * sizeof(FunctionID), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) return -1;
	frames = p;
	const char *sl = getenv("VBENCH_SAMPLING_SAFEPOINT_LEAVES");
	if (sl && *sl && strcmp(sl, "0") != 0)
		vb_leaf_recovery = 0;
	else
		vb_leaf_recovery = vb_interrupts_install() == 0 ? 1 : -1;
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
void vb_suspend_sampling_stop(void) { vb_suspend_sampling_stop_within(-1); }

// vb_suspend_sampling_stop_within stops the sampler, waiting at most ms (< 0: for
// ever). A crash's writer does not wait for ever: the sampler may be stuck
// suspending the runtime for the thread that is crashing. -1: it still runs
// (its trees are read as they stand, as live threads' are).
int vb_suspend_sampling_stop_within(int ms) {
	if (!running) return 0;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	if (vb_join_within(thread, ms) != 0) {
		vb_log("sampler: still running after %d ms; its trees are read as they stand", ms);
		return -1;
	}
	running = 0;
	if (vb_samples_taken)
		vb_log("sampler: %ld ticks, mean %ld us to suspend, %ld us suspended; stacks: %ld cut in the middle, %ld dropped (tick buffer full), %ld failed walks",
			(long)vb_samples_taken, (long)(vb_suspend_wait_ns / vb_samples_taken / 1000), (long)(vb_suspended_ns / vb_samples_taken / 1000),
			(long)vb_stacks_elided, (long)vb_stacks_dropped, (long)vb_stacks_failed);
	if (vb_leaf_recovery > 0)
		vb_log("sampler: stacks' leaves by the first interruption: %ld cut back to it (or its caller), %ld put back (it had returned), %ld stopped there; "
			"by a GC's hijack: %ld; as walked: %ld first interrupted where its caller is not found, %ld not interrupted (a safe point reached without)",
			(long)vb_leaf.cut, (long)vb_leaf.put_back, (long)vb_leaf.exact, (long)vb_leaf.parked, (long)vb_leaf.unplaced, (long)vb_leaf.uninterrupted);
	return 0;
}
