// Where CoreCLR's suspension interrupted each thread: the leaf the stack
// walk cannot see.
//
// SuspendRuntime sets the runtime's trap flag, waits a few microseconds for
// threads to reach a safe point by themselves, then stops each thread still
// running managed code by sending it SIGRTMIN (CoreCLR's "activation"; see
// ThreadSuspend::SuspendAllThreads and HandleSuspensionForInterruptedThread
// in dotnet/runtime src/coreclr/vm/threadsuspend.cpp). The handler suspends
// the thread on the spot only if the interrupted instruction is a GC safe
// point, that is in fully interruptible code (methods with loops). Elsewhere,
// in partially interruptible code (most small methods: safe points only at
// their calls) it hijacks the return address of the interrupted frame and
// lets the thread run on; the thread stops when that frame returns. If it
// has not stopped some microseconds later, the runtime sends another
// activation, which hijacks wherever the thread is then. DoStackSnapshot
// starts where the thread stopped, so the method it was in when first
// interrupted is either gone (a one-line method that calls nothing never
// appears as a leaf: its caller gets its samples) or no longer the leaf (a
// long-running method's own samples move to whatever it called later).
// docs/notebook/profiler.md, "Sampling accuracy", has the measurements.
//
// So a wrapper in front of CoreCLR's SIGRTMIN handler notes, per thread, the
// interrupted instruction pointer and which words just above the interrupted
// stack pointer CoreCLR's handler changed: a hijack overwrites exactly the
// interrupted frame's return-address slot with the address of its trip stub
// (code in CoreCLR, like the handler; a GC that ran meanwhile may have
// updated object references there too, never to CoreCLR's code). The first activation of each of the sampler's suspensions is the
// sample in time: if it hijacked a frame, the walk finds that frame's caller
// standing at the return address the hijack replaced; the frames below the
// interrupted function (what ran after the interruption) are dropped, or the
// function is put back when it had already returned (vb_interrupted_leaf).
//
// The wrapper runs only on SIGRTMIN deliveries, that is while the runtime
// suspends threads (for the sampler or for a GC). It never allocates, locks
// or enters Go; its only system call is gettid, once per thread.
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "vb.h"

// Words of stack copied above the interrupted SP: the interrupted frame's
// return-address slot lies within its frame. A frame larger than this is not
// recovered (measured on the workloads: slots at words 0 to 42).
#define WINDOW 64

typedef struct {
	int32_t tid;        // kernel thread id; 0: free slot
	uint32_t seq;       // odd while the thread's handler writes the record
	uintptr_t last_ip, last_sp; // where the latest activation interrupted the thread
	uint32_t last_gen;          // gen then (even: not the sampler's suspension)
	// The hijack in place since the latest activation that made one (ret 0:
	// none): where that activation interrupted the thread, the return address
	// it replaced, and the stack pointer the caller will have there.
	uintptr_t hij_ip, hij_ret, hij_ret_sp;
	// The first activation of the sampler's suspension first_gen: where it
	// interrupted the thread, the two words at its stack pointer (one is the
	// return address when the code there had pushed at most one word: a
	// frameless method, its ret, a stub), and its hijack as above
	// (first_ret 0: none).
	uint32_t first_gen;
	uintptr_t first_ip, first_sp, first_top[2], first_ret, first_ret_sp;
	// The sampler's own: the caller candidates it resolved for resolved_gen.
	uint32_t resolved_gen;
	FunctionID caller_fn[2];
} activation;

// Records by kernel thread id, open addressing; a slot is claimed once per
// thread id and reused by a later thread with the same id. A thread that
// finds no slot within PROBES of its own goes unrecorded (only after tens of
// thousands of thread ids were interrupted).
#define NRECORDS 16384
#define PROBES 64
static activation records[NRECORDS];
static struct sigaction clr_handler;
static uintptr_t clr_lo, clr_hi; // CoreCLR's code (the segment holding its handler): where a hijack points
static uint32_t gen;        // odd while the sampler suspends the runtime
static __thread int32_t my_tid __attribute__((tls_model("initial-exec")));

vb_leaf_counts vb_leaf;

static activation *record_for(int32_t tid, int claim) {
	uint32_t i = (uint32_t)tid % NRECORDS;
	for (uint32_t k = 0; k < PROBES; k++, i = (i + 1) % NRECORDS) {
		int32_t t = __atomic_load_n(&records[i].tid, __ATOMIC_ACQUIRE);
		if (t == tid) return &records[i];
		if (t != 0) continue;
		if (!claim) return 0;
		if (__atomic_compare_exchange_n(&records[i].tid, &t, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || t == tid)
			return &records[i];
	}
	return 0;
}

static void write_begin(activation *a) {
	__atomic_store_n(&a->seq, a->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}
static void write_end(activation *a) { __atomic_store_n(&a->seq, a->seq + 1, __ATOMIC_RELEASE); }

static int in_clr(uintptr_t p) { return p >= clr_lo && p < clr_hi; }

static void wrapper(int sig, siginfo_t *si, void *ucv) {
	if (!my_tid) my_tid = (int32_t)syscall(SYS_gettid);
	activation *a = record_for(my_tid, 1);
	if (!a) {
		clr_handler.sa_sigaction(sig, si, ucv);
		return;
	}
	ucontext_t *uc = ucv;
	uintptr_t *sp = (uintptr_t *)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t before[WINDOW];
	// The interrupted thread's stack above its SP holds its own frames (the
	// signal frame lies below SP): mapped, and changed only by CoreCLR's
	// handler while we run.
	memcpy(before, sp, sizeof before);
	uint32_t g = __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
	int first = (g & 1) && a->first_gen != g;
	write_begin(a);
	a->last_ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	a->last_sp = (uintptr_t)sp;
	a->last_gen = g;
	if (first) {
		a->first_gen = g;
		a->first_ip = a->last_ip;
		a->first_sp = a->last_sp;
		a->first_top[0] = before[0];
		a->first_top[1] = before[1];
		a->first_ret = 0;
	}
	write_end(a);

	// At a safe point this blocks until the runtime resumes; the walk then
	// starts at last_ip.
	clr_handler.sa_sigaction(sig, si, ucv);

	// A fresh hijack: exactly one word newly points into CoreCLR's code (an
	// older hijack CoreCLR undid changes the other way). A hijack left in
	// place (CoreCLR re-hijacked the same slot) keeps the record's; any
	// other outcome clears it.
	int fresh = -1, kept = 0;
	for (int i = 0; i < WINDOW; i++)
		if (sp[i] != before[i] && in_clr(sp[i]) && !in_clr(before[i])) fresh = fresh == -1 ? i : -2;
	if (fresh < 0 && a->hij_ret) {
		uintptr_t *slot = (uintptr_t *)a->hij_ret_sp - 1;
		kept = slot >= sp && slot < sp + WINDOW && in_clr(*slot);
	}
	write_begin(a);
	if (fresh >= 0) {
		a->hij_ip = a->last_ip;
		a->hij_ret = before[fresh];
		a->hij_ret_sp = (uintptr_t)&sp[fresh + 1];
		if (first) {
			a->first_ret = a->hij_ret;
			a->first_ret_sp = a->hij_ret_sp;
		}
	} else if (!kept) {
		a->hij_ret = 0;
	}
	write_end(a);
}

// clr_code finds the executable segment holding CoreCLR's handler.
static int clr_code(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	uintptr_t h = (uintptr_t)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && h >= lo && h < lo + ph->p_memsz) {
			clr_lo = lo;
			clr_hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

int vb_interrupts_install(void) {
	struct sigaction now;
	if (sigaction(SIGRTMIN, 0, &now) != 0 || !(now.sa_flags & SA_SIGINFO) || now.sa_sigaction == wrapper) return -1;
	if (!dl_iterate_phdr(clr_code, (void *)now.sa_sigaction)) return -1;
	clr_handler = now;
	now.sa_sigaction = wrapper; // same flags and mask as CoreCLR's
	return sigaction(SIGRTMIN, &now, 0);
}

// The sampler brackets each SuspendRuntime..ResumeRuntime with these; the
// generation open returns names this suspension's activations.
uint32_t vb_interrupts_open(void) { return __atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL); }
void vb_interrupts_close(void) { __atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL); }

static FunctionID function_at(uintptr_t ip) {
	FunctionID f = 0;
	if (FAILED(VCALL(vb_info, INFO_GetFunctionFromIP, GetFunctionFromIP_t)(vb_info, (const uint8_t *)ip, &f))) return 0;
	return f;
}

// vb_interrupt_read copies thread os_tid's record as of suspension g: what
// the stack walk looks for (the interrupted function's caller) and what
// vb_interrupted_leaf decides with. A thread in native code may take a late
// activation meanwhile: the copy is consistent, or empty.
void vb_interrupt_read(uint32_t g, int32_t os_tid, vb_interrupt *q) {
	*q = (vb_interrupt){0};
	activation *a = os_tid > 0 ? record_for(os_tid, 0) : 0;
	if (!a) return;
	uint32_t s = __atomic_load_n(&a->seq, __ATOMIC_ACQUIRE);
	activation c = *a;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((s & 1) || __atomic_load_n(&a->seq, __ATOMIC_RELAXED) != s) return;
	*q = (vb_interrupt){.last_ip = c.last_ip, .last_sp = c.last_sp, .hij_ip = c.hij_ip, .hij_ret = c.hij_ret, .hij_ret_sp = c.hij_ret_sp};
	// This suspension's first activation; or, if the thread's latest
	// activations were all in an earlier suspension of the sampler's, that
	// one's: if the thread has not run since, it decides this leaf too.
	q->now = c.first_gen == g;
	if (!q->now && !(c.first_gen && c.last_gen == c.first_gen)) return;
	q->first_ip = c.first_ip;
	q->first_sp = c.first_sp;
	// The interrupted function's caller: the return address the hijack
	// replaced and the stack pointer it returns with; without a hijack,
	// guessed from the words at the interrupted SP. The walk must have a
	// frame of that function at that SP.
	if (c.first_ret) {
		q->caller_sp[0] = c.first_ret_sp;
	} else {
		q->caller_sp[0] = c.first_sp + sizeof(uintptr_t);
		q->caller_sp[1] = c.first_sp + 2 * sizeof(uintptr_t);
	}
	if (a->resolved_gen != c.first_gen) { // resolved once, reused while the thread stays parked
		a->caller_fn[0] = function_at(c.first_ret ? c.first_ret : c.first_top[0]);
		a->caller_fn[1] = c.first_ret ? 0 : function_at(c.first_top[1]);
		a->resolved_gen = c.first_gen;
	}
	q->caller_fn[0] = a->caller_fn[0];
	q->caller_fn[1] = a->caller_fn[1];
}

// vb_interrupted_leaf decides a walk's leaf, while the runtime is still
// suspended (the thread's managed code stopped, its code there). The walk's
// first frame stands at leaf_ip with stack pointer leaf_sp; caller_at is the
// index (0: the leaf) of the frame of a q->caller_fn with its stack pointer
// q->caller_sp, -1 if none. It returns a function to add below the walk's
// frames (0: none) and sets *drop to the number of leaf-most frames to drop
// first.
FunctionID vb_interrupted_leaf(const vb_interrupt *q, uintptr_t leaf_ip, uintptr_t leaf_sp, int32_t caller_at, uint32_t *drop) {
	*drop = 0;
	int hijacked = q->hij_ret && q->hij_ret == leaf_ip && q->hij_ret_sp == leaf_sp; // stopped on the latest hijack
	int stopped_there = leaf_ip == q->last_ip && leaf_sp == q->last_sp;              // at the latest interruption
	// The first activation of this suspension decides; so does an earlier
	// suspension's when the thread still stands where that one stopped it.
	if (q->first_ip && (q->now || hijacked || stopped_there)) {
		if (leaf_ip == q->first_ip && leaf_sp == q->first_sp) {
			vb_leaf.exact++; // stopped where first interrupted (a safe point)
			return 0;
		}
		if (caller_at >= 0) {
			// The caller's frame is still there: what ran below it since goes,
			// the interrupted function (if managed) comes back.
			FunctionID f = function_at(q->first_ip);
			if (caller_at == 0 && f)
				vb_leaf.put_back++;
			else
				vb_leaf.cut++;
			*drop = (uint32_t)caller_at;
			return f;
		}
		vb_leaf.unplaced++; // native code with a frame, or its caller has returned too
		return 0;
	}
	// Stopped on the hijack of a GC's suspension, not run since.
	if (hijacked) {
		FunctionID f = function_at(q->hij_ip);
		if (f) {
			vb_leaf.parked++;
			return f;
		}
	}
	vb_leaf.uninterrupted++; // a safe point the thread reached by itself
	return 0;
}
