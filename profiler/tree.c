// Cold half of the call trees: the arena, per-thread tree creation (the
// once-per-thread slow path of the enter hook), the global thread list and
// per-thread CPU time.
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "vb.h"

static vb_thread *threads_head; // lock-free push-only list
static pthread_key_t thread_key;

// 8 GiB of address space, reserved but not committed: pages cost memory only
// once a tree grows into them.
#define VB_ARENA_SIZE (8ull << 30)

int vb_arena_init(void) {
	void *p = mmap(0, VB_ARENA_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) return -1;
	vb_arena_base = p;
	vb_arena_size = VB_ARENA_SIZE;
	return 0;
}

uint64_t vb_arena_used(void) { return __atomic_load_n(&vb_arena_off, __ATOMIC_RELAXED); }
int vb_arena_exhausted(void) { return vb_arena_used() >= vb_arena_size; }

static void *arena_alloc(size_t n) {
	n = (n + 63) & ~(size_t)63;
	uint64_t off = __atomic_fetch_add(&vb_arena_off, n, __ATOMIC_RELAXED);
	if (off + n > vb_arena_size) return 0;
	return vb_arena_base + off;
}

// At thread exit: record the thread's final CPU time. The tree stays: the
// profile is written later.
static void thread_exit(void *arg) {
	vb_thread *t = arg;
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		t->cpu_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	vb_tl_thread_exit(t);
	__atomic_store_n(&t->dead, 1, __ATOMIC_RELEASE);
}

void vb_tree_thread_key_init(void) { pthread_key_create(&thread_key, thread_exit); }

vb_thread *vb_thread_new(int32_t os_tid, ThreadID managed) {
	vb_thread *t = arena_alloc(sizeof(vb_thread));
	if (!t) return 0;
	t->active = &t->root;
	t->root.hint = t->root.hint2 = &vb_no_child;
	t->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)os_tid << 32) ^ (uint64_t)(uintptr_t)t;
	t->os_tid = os_tid;
	t->managed_id = managed;
	vb_thread *h = __atomic_load_n(&threads_head, __ATOMIC_ACQUIRE);
	do {
		t->next_thread = h;
	} while (!__atomic_compare_exchange_n(&threads_head, &h, t, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
	return t;
}

vb_thread *vb_threads_head(void) { return __atomic_load_n(&threads_head, __ATOMIC_ACQUIRE); }

// vb_threads_forget, at a later attach: the last attach's trees stay in the
// arena, out of the list the next profile is read from.
void vb_threads_forget(void) { __atomic_store_n(&threads_head, 0, __ATOMIC_RELEASE); }

// vb_thread_attach creates the calling thread's tree; &vb_nothread if the
// arena is exhausted (the thread goes unrecorded). Once per thread.
vb_thread *vb_thread_attach(void) {
	vb_thread *t = vb_thread_new((int32_t)syscall(SYS_gettid), 0);
	if (!t) return &vb_nothread;
	if (vb_mode == VB_MODE_INSTRUMENTATION) t->last = arena_alloc(VB_LAST_CAP * sizeof(vb_node *)); // NULL if full: unused
	if (vb_tl_on) t->tl = vb_tl_new(t->os_tid); // NULL: this thread has no timeline
	vb_tls_thread = t;
	pthread_setspecific(thread_key, t);
	return t;
}

// First enter on a thread: create its tree, then record the enter. Called from
// the asm stub with the vector registers saved, so libc is fine here.
void vb_enter_slow(vb_fn *fn) {
	if (vb_thread_attach() != &vb_nothread) vb_enter_fast(fn);
}

// CPU time of a thread: final if it exited, else read now through its
// per-thread CPU clock (the clock id pthread_getcpuclockid would build).
int64_t vb_thread_cpu_ns(vb_thread *t) {
	if (__atomic_load_n(&t->dead, __ATOMIC_ACQUIRE)) return t->cpu_ns;
	int64_t v = vb_cpu_ns_of(t->os_tid);
	if (v > t->cpu_ns) t->cpu_ns = v;
	return t->cpu_ns;
}
