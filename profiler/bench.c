//go:build vbenchtest

// Microbenchmarks of the hot path for `go test -bench Hook`: the real asm
// stubs called in a loop the way the JIT calls them (enter: client ID in r14;
// leave: in rdi), on this thread's tree.
#include "vb.h"

// The asm moves below the red zone before calling, and declares every
// register the stubs may clobber.
#define PAIR(enter, leave, f)                                                                   \
	__asm__ volatile("subq $128, %%rsp\n\tmovq %0, %%r14\n\tcall " enter "\n\tmovq %0, %%rdi\n\tcall " leave \
			 "\n\taddq $128, %%rsp"                                                        \
			 :                                                                             \
			 : "r"(f)                                                                      \
			 : "r14", "rdi", "rsi", "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "memory", "cc")

static vb_fn bench_fn = {.name = "bench", .user = 1};
static int ready;

// vb_bench_pairs runs n enter/leave pairs through the given stubs and returns
// the elapsed nanoseconds. kind: 0 tracing stubs, 1 null stubs, 2 rdtsc only.
int64_t vb_bench_pairs(int64_t n, int kind) {
	if (!ready) {
		vb_arena_init();
		vb_tree_thread_key_init();
		ready = 1;
	}
	vb_fn *f = &bench_fn;
	int64_t t0 = vb_mono_ns();
	uint64_t sink = 0;
	for (int64_t i = 0; i < n; i++) {
		switch (kind) {
		case 0: PAIR("vb_enter_stub", "vb_leave_stub", f); break;
		case 1: PAIR("vb_null_stub", "vb_null_stub", f); break;
		default: sink += vb_rdtsc(); sink += vb_rdtsc(); break;
		}
	}
	__asm__ volatile("" ::"r"(sink));
	return vb_mono_ns() - t0;
}

// vb_bench_calls runs n pairs for a fresh function and returns the calls its
// node recorded (all within one C call, so on one thread).
#include <stdlib.h>
int64_t vb_bench_calls(int64_t n) {
	vb_bench_pairs(0, 2); // initialise the arena
	vb_fn *f = calloc(1, sizeof(vb_fn));
	f->user = 1;
	for (int64_t i = 0; i < n; i++) PAIR("vb_enter_stub", "vb_leave_stub", f);
	vb_thread *t = vb_tls_thread;
	if (t == &vb_nothread || t->active != &t->root) return -1;
	for (vb_node *c = t->root.first; c; c = c->next)
		if (c->fn == f) return c->incl_ticks > 0 ? (int64_t)c->calls : -2;
	return -3;
}
