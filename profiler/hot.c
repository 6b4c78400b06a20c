// The C half of the enter/leave/tailcall hot path: what hooks.S's pure-asm
// fast paths hand over (a child not seen last time, a mismatched leave, the
// first call on a thread, a full arena). Called with every caller-saved
// integer register saved; the whole file is compiled for general-purpose
// registers only, so nothing here touches an SSE/AVX register. Nothing here
// allocates, locks, makes a system call or enters Go: nodes come from the
// thread's arena chunk, refilled with one atomic add.
#pragma GCC push_options
#pragma GCC target("general-regs-only")

#include "vb.h"

// hooks.S hard-codes these offsets.
_Static_assert(offsetof(vb_node, fn) == 0, "N_FN");
_Static_assert(offsetof(vb_node, parent) == 8, "N_PARENT");
_Static_assert(offsetof(vb_node, hint) == 32, "N_HINT");
_Static_assert(offsetof(vb_node, calls) == 40, "N_CALLS");
_Static_assert(offsetof(vb_node, incl_ticks) == 48, "N_INCL");
_Static_assert(offsetof(vb_node, timed) == 56, "N_TIMED");
_Static_assert(offsetof(vb_node, start) == 64, "N_START");
_Static_assert(offsetof(vb_node, countdown) == 88, "N_COUNT");
_Static_assert(offsetof(vb_thread, active) == 136, "T_ACTIVE");
_Static_assert(offsetof(vb_thread, rng) == 160, "T_RNG");

__attribute__((visibility("hidden"))) vb_node vb_no_child = {.fn = (vb_fn *)1, .hint = &vb_no_child, .hint2 = &vb_no_child};
__attribute__((visibility("hidden"))) vb_thread vb_nothread = {.active = &vb_nothread.root, .root = {.hint = &vb_no_child, .hint2 = &vb_no_child}};

// Per-thread tree, initially the sentinel. initial-exec: a plain
// %fs-relative load, no __tls_get_addr and no allocation on first touch.
__thread vb_thread *vb_tls_thread __attribute__((tls_model("initial-exec"))) = &vb_nothread;

__attribute__((visibility("hidden"))) int64_t vb_exact_calls = 1024;
__attribute__((visibility("hidden"))) uint64_t vb_time_mask = 31;

// The arena: one big MAP_NORESERVE mapping, carved into per-thread chunks.
char *vb_arena_base;
uint64_t vb_arena_size;
uint64_t vb_arena_off; // atomically advanced
#define VB_CHUNK (64 * 1024)

static __attribute__((noinline)) int refill(vb_thread *t) {
	uint64_t off = __atomic_fetch_add(&vb_arena_off, VB_CHUNK, __ATOMIC_RELAXED);
	if (off + VB_CHUNK > vb_arena_size) return 0;
	t->chunk_cur = vb_arena_base + off;
	t->chunk_end = t->chunk_cur + VB_CHUNK;
	return 1;
}

// vb_node_child finds or creates p's child for fn. Children are prepended and
// published with a release store; lists are never reordered, so a concurrent
// reader (the profile writer) always sees a consistent list.
vb_node *vb_node_child(vb_thread *t, vb_node *p, vb_fn *fn) {
	vb_node *c = p->hint;
	if (__builtin_expect(c->fn == fn, 1)) return c;
	c = p->hint2;
	if (c->fn == fn) {
		p->hint2 = p->hint;
		p->hint = c;
		return c;
	}
	for (c = p->first; c; c = c->next) {
		if (c->fn == fn) {
			p->hint2 = p->hint;
			p->hint = c;
			return c;
		}
	}
	if ((size_t)(t->chunk_end - t->chunk_cur) < sizeof(vb_node) && !refill(t)) return 0;
	c = (vb_node *)t->chunk_cur; // arena memory is zero-filled
	t->chunk_cur += sizeof(vb_node);
	c->fn = fn;
	c->parent = p;
	c->hint = c->hint2 = &vb_no_child;
	c->countdown = 1;
	c->next = p->first;
	__atomic_store_n(&p->first, c, __ATOMIC_RELEASE);
	p->hint2 = p->hint;
	p->hint = c;
	return c;
}

// vb_time_this decides whether this call of node c is timed: every call
// while the node has had at most vb_exact_calls, then about one call in
// (vb_time_mask+1)/2, with random gaps (xorshift64) so the timed calls are
// an unbiased sample. hooks.S and the instrumentation engine's inline IL
// implement the same schedule (decrement, then vb_next_timed at zero).
static inline void vb_next_timed(vb_thread *t, vb_node *c) {
	if ((int64_t)c->calls <= vb_exact_calls) {
		c->countdown = 1;
		return;
	}
	uint64_t x = t->rng;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	c->countdown = (int64_t)(x & vb_time_mask) + 1;
}

static inline int vb_time_this(vb_thread *t, vb_node *c) {
	if (--c->countdown != 0) return 0;
	vb_next_timed(t, c);
	return 1;
}

// The arena ran out: stop recording on this thread until the frames opened
// since return. The lost node matches no function, so the asm fast paths
// always hand over to C while it is active.
static void enter_lost(vb_thread *t) {
	t->lost_saved = t->active;
	t->lost_node.fn = (vb_fn *)1;
	t->lost_node.hint = t->lost_node.hint2 = &vb_no_child;
	t->lost_node.parent = t->active;
	t->active = &t->lost_node;
	t->lost = 1;
}

// How often the asm fast paths handed over to C (logged with VBENCH_DEBUG=1).
uint64_t vb_slow_enters, vb_slow_leaves, vb_mismatch_pops;

// Returns 1 when the thread has no tree yet (the stub then takes the slow
// path, which saves the vector registers and calls vb_enter_slow).
int vb_enter_fast(vb_fn *fn) {
	vb_thread *t = vb_tls_thread;
	__atomic_fetch_add(&vb_slow_enters, 1, __ATOMIC_RELAXED);
	if (__builtin_expect(t == &vb_nothread, 0)) return 1;
	if (__builtin_expect(t->lost != 0, 0)) {
		t->lost++;
		return 0;
	}
	vb_node *c = vb_node_child(t, t->active, fn);
	if (__builtin_expect(c == 0, 0)) {
		enter_lost(t);
		return 0;
	}
	c->calls++;
	t->active = c;
	if (vb_time_this(t, c)) c->start = vb_rdtsc();
	return 0;
}

static inline void close_frame(vb_thread *t, vb_node *c, uint64_t now) {
	if (c->start) {
		uint64_t d = now - c->start;
		c->incl_ticks += d;
		c->timed++;
		c->start = 0;
		if (d < c->min_ticks - 1) c->min_ticks = d + 1; // 0: none yet (wraps to the largest)
	}
	t->active = c->parent;
}

// vb_pop_to closes every open frame from the active one up to and including
// the nearest frame of fn. A frame whose leave never came (an unwind we were
// not told about) is closed at the same instant. Returns 0 if fn is not open.
int vb_pop_to(vb_thread *t, vb_fn *fn) {
	vb_node *c = t->active;
	while (c->fn && c->fn != fn) c = c->parent;
	if (!c->fn) return 0;
	uint64_t now = vb_rdtsc();
	for (;;) {
		vb_node *a = t->active;
		close_frame(t, a, now);
		if (a == c) return 1;
	}
}

// vb_lost_pop leaves one unrecorded frame.
void vb_lost_pop(vb_thread *t) {
	if (--t->lost == 0) t->active = t->lost_saved;
}

void vb_leave_fast(vb_fn *fn) {
	vb_thread *t = vb_tls_thread;
	__atomic_fetch_add(&vb_slow_leaves, 1, __ATOMIC_RELAXED);
	if (__builtin_expect(t == &vb_nothread, 0)) return;
	if (__builtin_expect(t->lost != 0, 0)) {
		vb_lost_pop(t);
		return;
	}
	vb_node *c = t->active;
	if (__builtin_expect(c->fn == fn, 1)) {
		close_frame(t, c, c->start ? vb_rdtsc() : 0);
		return;
	}
	if (vb_pop_to(t, fn)) __atomic_fetch_add(&vb_mismatch_pops, 1, __ATOMIC_RELAXED);
}

// ---- The timeline's hooks (VBENCH_TIMELINE=1, tracing; timeline.c has its
// cold half): the tree's work of the stubs' fast paths, plus one fixed-size
// event per call in the thread's own buffer. One rdtsc per hook serves both.
// No allocation, lock or system call: the buffer was reserved at the
// thread's first call, and the cap is taken VB_TL_BLOCK events at a time
// with one atomic add.
int vb_tl_on;
uint64_t vb_tl_min_ticks, vb_tl_cap;
int64_t vb_tl_left;

static inline void tl_push(vb_tl *l, vb_fn *fn, uint64_t now) {
	uint64_t d = l->depth++;
	if (__builtin_expect(d >= VB_TL_DEPTH, 0)) {
		l->dropped++;
		return;
	}
	uint64_t i = l->n;
	if (__builtin_expect(i == l->budget, 0)) {
		int64_t old = __atomic_fetch_sub(&vb_tl_left, VB_TL_BLOCK, __ATOMIC_RELAXED);
		if (old > 0) l->budget += old < VB_TL_BLOCK ? (uint64_t)old : VB_TL_BLOCK;
	}
	l->stack[d].fn = fn;
	if (__builtin_expect(i == l->budget, 0)) { // the cap is reached
		l->stack[d].idx = VB_TL_NONE;
		l->dropped++;
		return;
	}
	vb_tl_ev *e = &l->ev[i];
	e->ts = now;
	e->dur = 0;
	e->fn = fn;
	l->stack[d].idx = i;
	__atomic_store_n(&l->n, i + 1, __ATOMIC_RELEASE);
}

// tl_close closes the top frame: folded when shorter than the minimum (then
// its callees, shorter still, were folded before it and it is the last
// event), else its duration is filled in.
static inline void tl_close(vb_tl *l, uint64_t now) {
	uint64_t d = --l->depth;
	if (d >= VB_TL_DEPTH) return;
	uint64_t i = l->stack[d].idx;
	if (i == VB_TL_NONE) return;
	vb_tl_ev *e = &l->ev[i];
	uint64_t dur = now - e->ts;
	if (dur < vb_tl_min_ticks && i + 1 == l->n) {
		__atomic_store_n(&l->n, i, __ATOMIC_RELEASE);
		l->folded++;
		return;
	}
	__atomic_store_n(&e->dur, dur ? dur : 1, __ATOMIC_RELEASE);
}

// vb_tl_pop closes fn's frame and, as the tree does for a leave that is not
// the top frame's, the frames above it; nothing when fn is not open.
void vb_tl_pop(vb_tl *l, vb_fn *fn, uint64_t now) {
	if (l->depth == 0) return;
	if (l->depth > VB_TL_DEPTH) { // frames this deep are not followed: trust the pairing
		l->depth--;
		return;
	}
	uint64_t k = l->depth;
	while (k > 0 && l->stack[k - 1].fn != fn) k--;
	if (k == 0) return;
	while (l->depth >= k) tl_close(l, now);
}

int vb_tl_enter(vb_fn *fn) {
	vb_thread *t = vb_tls_thread;
	if (__builtin_expect(t == &vb_nothread, 0)) return 1;
	uint64_t now = vb_rdtsc();
	if (t->tl) tl_push(t->tl, fn, now);
	if (__builtin_expect(t->lost != 0, 0)) {
		t->lost++;
		return 0;
	}
	vb_node *c = vb_node_child(t, t->active, fn);
	if (__builtin_expect(c == 0, 0)) {
		enter_lost(t);
		return 0;
	}
	c->calls++;
	t->active = c;
	if (vb_time_this(t, c)) c->start = now;
	return 0;
}

void vb_tl_leave(vb_fn *fn) {
	vb_thread *t = vb_tls_thread;
	if (__builtin_expect(t == &vb_nothread, 0)) return;
	uint64_t now = vb_rdtsc();
	if (t->tl) vb_tl_pop(t->tl, fn, now);
	if (__builtin_expect(t->lost != 0, 0)) {
		vb_lost_pop(t);
		return;
	}
	vb_node *c = t->active;
	if (__builtin_expect(c->fn == fn, 1)) {
		close_frame(t, c, now);
		return;
	}
	if (vb_pop_to(t, fn)) __atomic_fetch_add(&vb_mismatch_pops, 1, __ATOMIC_RELAXED);
}

// ---- The instrumentation engine's counting functions. Rewritten IL calls
// them with an unmanaged calli that suppresses the GC transition, so they run
// as plain C calls from managed code (SysV ABI: the JIT saved what it needs):
// the same tree, schedule and rules as the hooks above (no allocation, lock,
// system call or Go; a thread's first call creates its tree once).

// This thread's tree (created on first use), for the rewritten code's
// thread-static; &vb_nothread if the arena has no room for it.
vb_thread *vb_ithread(void) {
	vb_thread *t = vb_tls_thread;
	return t != &vb_nothread ? t : vb_thread_attach();
}

// The inline entry counted a call whose countdown reached zero: time it.
void vb_itime(vb_node *c) {
	vb_next_timed(vb_tls_thread, c);
	c->start = vb_rdtsc();
}

// Any entry the inline IL does not finish (a child not seen last time, a
// thread without a tree, a full arena): returns the frame's node, which the
// method keeps in a local (NULL when the frame is not recorded).
vb_node *vb_ienter(vb_fn *fn) {
	vb_thread *t = vb_tls_thread;
	vb_node *c = t->active->hint;
	if (__builtin_expect(c->fn == fn, 1)) {
		c->calls++;
		t->active = c;
		if (vb_time_this(t, c)) c->start = vb_rdtsc();
		return c;
	}
	if (vb_enter_fast(fn)) vb_enter_slow(fn);
	t = vb_tls_thread;
	if (t == &vb_nothread || t->lost) return 0;
	c = t->active;
	if (t->last && fn->id < VB_LAST_CAP) t->last[fn->id] = c;
	return c;
}

// Any normal exit (a ret, a tail call, a jmp) the inline IL does not finish:
// a timed frame, or a frame that is not the active one.
void vb_ileave(vb_node *c, vb_fn *fn) {
	vb_thread *t = vb_tls_thread;
	if (__builtin_expect(t->active == c, 1)) {
		close_frame(t, c, c->start ? vb_rdtsc() : 0);
		return;
	}
	vb_leave_fast(fn);
}

// The fault handler around the body: an exception is leaving the method.
uint64_t vb_iunwinds;
void vb_iunwind(vb_fn *fn) {
	vb_thread *t = vb_tls_thread;
	__atomic_fetch_add(&vb_iunwinds, 1, __ATOMIC_RELAXED);
	if (t->active->fn == fn)
		close_frame(t, t->active, t->active->start ? vb_rdtsc() : 0);
	else
		vb_leave_fast(fn);
}

#pragma GCC pop_options
