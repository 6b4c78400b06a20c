// The sampling engine (VBENCH_MODE=sampling; cpu-sampling while it was
// experimental): a sampler that never stops the runtime. Each managed thread gets a timer on its own CPU time (a
// timer_create CPU-clock timer; a busy thread moves to directed ticks: see
// direct) that sends SIGPROF to that thread alone, every VBENCH_INTERVAL
// of the CPU time it used; the handler
// walks the
// interrupted thread's frames by frame pointers (the RBP chain) from the
// signal context and stores the raw instruction pointers in the thread's
// ring of preallocated slots. A drain thread (a C pthread with every signal
// blocked, like suspend-sampling's) empties the rings every DRAIN_NS
// (20 ms; no tick waits for it), resolves each IP to a method with ICorProfilerInfo's
// GetFunctionFromIP (from a normal thread, cached by IP) and merges the
// stacks into the per-thread sampling trees the profile writer already reads.
// A thread that waits (uses no CPU) gets one tick per wait, whose stack is
// weighed by the time it waits (see waits).
//
// Why SIGPROF: neither CoreCLR (SIGRTMIN for suspension, the fault signals,
// SIGINT/SIGQUIT/SIGTERM), System.Native (SIGINT, SIGQUIT, SIGCONT, SIGCHLD,
// SIGWINCH, SIGTTOU, SIGURG... only when asked) nor Go's c-shared runtime
// (in a library it installs handlers only for the synchronous signals,
// SIGPIPE and SIGURG, its preemption signal; SIGPROF only for its own
// pprof, which we never start) handles it. Installation refuses to take it
// over when someone already has (the engine then fails to start and says so).
// A program that takes it later (ignores it, gives it a handler of its own)
// blinds the engine: the drain checks the handler at every pass and, when
// it is no longer ours, stops every tick and says why (see check_handler).
//
// The handler is async-signal-safe end to end: it reads the thread's record
// (found by kernel thread id in a fixed table: no allocation, no lock), the
// signal context and stack words inside the range recorded for the thread
// at registration (each read checked against it), and publishes one slot
// with a release store. Its only system calls are gettid, once per thread,
// and clock_gettime of its own CPU clock in a wait tick's and a directed
// tick's (see direct).
// It runs without SA_ONSTACK, on the interrupted thread's own stack (a
// managed thread's is megabytes), so nothing of it lands on the 16 KiB
// alternate stack CoreCLR gives each thread for its stack-overflow handler;
// its frame is a few dozen bytes either way. The trampolines into Go block
// SIGPROF as they block SIGRTMIN (profiler.c): a tick never lands on a
// goroutine stack, and the timers are deleted before the profile is written.
//
// Walks: the leaf is the interrupted IP; each frame above it is the return
// address at [rbp+8], the next frame at [rbp], which must lie higher on the
// same stack. CoreCLR's JIT keeps RBP frames for all but small methods (leaves, and forwarders of one call)
// on Linux x64 (ETW_EBP_FRAMED) and libcoreclr is built with frame pointers.
// A frameless leaf hides its caller (RBP is still the caller's frame): the
// drain then looks for the caller's return address among the words at the
// stack pointer (see resolve); a frameless method in the middle of the
// stack hides its caller too, recovered from its prolog and the words kept
// above its callee's frame record (see frameless). A walk that stops inside managed code (an
// RBP that is no frame pointer) is not rooted: its frames go under an
// "[vbench: stack incomplete]" root, never grafted at the thread's root.
// Frames GetFunctionFromIP does not know (native code, stubs) are dropped
// and counted, like the native frames DoStackSnapshot skips.
//
// Ticks: CPU-clock timers are checked at the kernel's scheduler tick
// (250 Hz here), so at 1 ms a signal carries the expirations it stands for
// in si_overrun: such a sample weighs 1 + overrun, and samples times the
// interval stay the thread's CPU time. A directed tick (the thread's own
// wall-clock timer's) is weighed by the handler from the thread's CPU
// clock: the intervals of CPU it used since its last one.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "vb.h"

#define NRECORDS 4096  // threads registered at once (by kernel thread id)
#define PROBES 64
#define NSLOTS 64      // samples a thread may hold between two drains
#define LEAD VB_CPU_LEAD // leaf-most frames kept in order
#define RING VB_CPU_RING // root-most frames kept round a ring
#define NHIDDEN 8     // OSR frames' hidden return addresses per walk
#define SCAN 512      // words searched above a frame record for an OSR method's hidden one
#define DIRECTED_TAG 0x5642 // si_value's high half: a directed tick (a wall-clock timer's, see direct), not someone else's signal
#define MAX_WEIGHT 0xffff    // a sample's weight at most
#define WAIT_TAG 0x5643     // ... a waiting thread's one tick (see waits)
#define TOPWORDS 4     // words at the interrupted stack pointer (a frameless leaf's return address)
#define NUP 24         // leaf-most frames whose record's upper words are kept (see frameless)
#define UPWORDS 6      // words kept above each of those frame records

enum {
	WALK_ROOTED = 1,    // the chain ended at a zero frame pointer (the thread's first frame)
	WALK_BROKEN = 2,    // the chain stopped at a frame pointer outside the stack or not above the last
	WALK_OFFSTACK = 4,  // the interrupted SP is not on the thread's stack (a signal's alternate stack)
	WALK_NORANGE = 8,   // the thread's stack range is not known yet: leaf only
	WALK_WAIT = 16,     // a waiting thread's stack (see waits), not a tick of CPU time
	WALK_SCANNED = 32,  // RBP was no frame pointer: the walk starts at a frame record found above SP (see scan_frame)
	WALK_DIRECTED = 64, // a directed tick's (see direct)
	WALK_KERNEL = 128,  // taken inside the kernel window (kernel.c)
};
#define SCAN_WAIT 1024 // words above the stack pointer searched for a frame record (see scan_frame)

typedef struct {
	uint32_t seen;     // frames walked (> LEAD+RING: the middle went round the ring)
	uint32_t weight;   // 1 + the timer's overruns
	uint32_t flags;    // WALK_*
	uint32_t pad;
	uintptr_t top[TOPWORDS];
	uintptr_t sp0, bp0; // the interrupted stack and frame pointers
	int64_t cpu_end;    // a wait tick's: the thread's CPU time as its walk ended (see waits)
	// OSR frames (see resolve): walk index j of a frame whose record's next
	// frame pointer also lies higher up, and the word above that copy.
	uint32_t nhid;
	uint32_t hid_at[NHIDDEN];
	uintptr_t hid_ret[NHIDDEN];
	// up[j]: the UPWORDS words above the frame record that gave frame j's
	// return address (j < NUP): a frameless frame j's own frame, and above
	// it the return address into its caller (see frameless).
	uintptr_t up[NUP][UPWORDS];
	uintptr_t ip[LEAD + RING];
} slot;

enum { WAIT_NONE, WAIT_SENT, WAIT_HELD }; // a thread's wait (see waits): running, its stack on the way, held
#define WAIT_SITES 32 // call sites a held waiting stack's later weight is added to (lines)

typedef struct {
	int32_t tid;           // kernel thread id; 0: free
	int32_t armed;         // ticks run (directed, else the timer)
	int32_t directed;      // ticks from a wall-clock timer, weighed by the handler (see direct), not a CPU-clock one
	int32_t busy;          // the drain saw a timer signal with an overrun: direct it
	int64_t tick_cpu;      // directed: the thread's CPU time ticks account for so far, ns (the handler's once set)
	uint32_t empty;        // directed: the handler's empty ticks, all told
	uint32_t pass_empty;   // directed: empty at the drain's last pass (see check_directed)
	uint32_t pass_taken;   // directed: its ticks' slots drained since that pass
	int64_t win_cpu;       // directed: its CPU time at the start of the window (see MOVE_BACK_NS)
	int64_t pass_cpu;      // directed: its CPU time at the drain's last pass (see check_directed)
	int64_t pass_ns;       // directed: when that was read, monotonic ns
	int64_t win_start;     // directed: the window's start, monotonic ns
	int32_t wait;          // see waits: WAIT_NONE, WAIT_SENT, WAIT_HELD
	uint32_t wait_owed;    // wait intervals due while its stack is on the way
	int64_t wait_cpu;      // its CPU time at the last wait check (-1: not read yet)
	vb_node *wait_leaf;    // WAIT_HELD: where its waiting stack ends (0: no managed frame)
	vb_lsample *wait_line; // WAIT_HELD, with lines: the leaf's line entry (0: none)
	vb_lsample *wait_sites[WAIT_SITES]; // ... and its call sites' entries (note_sites)
	uint32_t nwait_sites;
	ThreadID managed;      // the runtime's id (0: not assigned)
	uintptr_t lo, hi;      // the thread's stack (hi 0: unknown)
	uintptr_t seen_sp;     // a stack pointer the handler saw while hi was 0
	uint32_t head;         // slots written (by the handler)
	uint32_t tail;         // slots drained (by the drain thread)
	uint64_t full;         // samples lost: every slot was taken
	timer_t timer;
	slot *slots;           // NSLOTS, mmap'd once per record
	vb_thread *tree;
} record;

static record records[NRECORDS];
// The records with slots, in the order they got them (under reg; a record
// keeps its slots for good): the drain's passes walk these, not the 4096
// records, whose 600 KiB a pass would otherwise read at every wake-up.
static record *used[NRECORDS];
static int nused;
static pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER; // registration vs the drain (never the handler)
static pthread_t drainer;
static int running, stop;
static __thread int32_t my_tid __attribute__((tls_model("initial-exec")));

// Counters (VBENCH_DEBUG=1 logs them; the profile warns on losses).
int64_t vb_cpu_signals, vb_cpu_weight, vb_cpu_full, vb_cpu_rooted, vb_cpu_broken, vb_cpu_offstack, vb_cpu_norange;
int64_t vb_cpu_frames, vb_cpu_unresolved, vb_cpu_incomplete, vb_cpu_osr, vb_cpu_no_managed, vb_cpu_leaf_callers, vb_cpu_timer_fail;
int64_t vb_cpu_wait_sent, vb_cpu_wait_stacks, vb_cpu_wait_weight; // see waits
int64_t vb_cpu_scanned; // walks started at a frame record found by scan_frame
static int waits_off;
int64_t vb_cpu_handler_ns, vb_cpu_handler_n; // with VBENCH_CPU_TIMING=1: time in the handler
// ... and its distribution: calls by their TSC ticks, 64 a bucket (the
// median is what a preempted handler does not move).
#define HBUCKETS 4096
#define HSHIFT 6
static int64_t handler_hist[HBUCKETS];
static int timing, dump;
static int in_callback; // resolving inside a runtime callback or at the stop (see frame_at)
// The root of stacks whose walk did not reach the thread's first frame; Go
// names it (profile.IncompleteStack).
vb_fn vb_incomplete_fn = {.id = UINT32_MAX - 1, .user = 1, .name = "", .module = "", .assembly = "", .type_name = ""};
// The frames of samples with no managed frame, by where the interrupted IP
// lies (VB_NATIVE_*); Go names them (profile.NativeFrames). Before, such
// samples were counted in the thread's and the profile's totals and in no
// frame: 20-30 % of a short program's samples vanished from every table.
vb_fn vb_native_fns[VB_NATIVE_KINDS] = {
	{.id = UINT32_MAX - 2, .user = 1, .name = "", .module = "", .assembly = "", .type_name = ""},
	{.id = UINT32_MAX - 3, .user = 1, .name = "", .module = "", .assembly = "", .type_name = ""},
	{.id = UINT32_MAX - 4, .user = 1, .name = "", .module = "", .assembly = "", .type_name = ""},
	{.id = UINT32_MAX - 5, .user = 1, .name = "", .module = "", .assembly = "", .type_name = ""},
};

static record *find(int32_t tid, int claim) {
	uint32_t i = (uint32_t)tid % NRECORDS;
	for (uint32_t k = 0; k < PROBES; k++, i = (i + 1) % NRECORDS) {
		int32_t t = __atomic_load_n(&records[i].tid, __ATOMIC_ACQUIRE);
		if (t == tid) return &records[i];
		if (t != 0) continue;
		if (!claim) return 0;
		if (__atomic_compare_exchange_n(&records[i].tid, &t, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || t == tid) return &records[i];
	}
	return 0;
}

// ---- the signal path

// on_stack: p and the word after it lie in [lo, hi), aligned (no p + 16,
// which wraps for p near the top of the address space: a scanned word of
// -8 passed it).
static inline int on_stack(uintptr_t p, uintptr_t lo, uintptr_t hi) { return p >= lo && p < hi && hi - p >= 16 && !(p & 7); }

// is_record reports whether f looks like a frame record above address
// floor: on the stack, its return address no stack address, its saved
// frame pointer another such record higher up, links times over (the last
// one's may be 0: the thread's first frame).
static int is_record(uintptr_t f, uintptr_t floor, uintptr_t lo, uintptr_t hi, int links) {
	for (int k = 0; k < links; k++) {
		if (f <= floor || !on_stack(f, lo, hi)) return 0;
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
	for (uintptr_t a = sp; a < sp + 8 * SCAN_WAIT && on_stack(a, lo, hi); a += 8) {
		uintptr_t w = *(uintptr_t *)a;
		if (is_record(w, a, lo, hi, 4)) return w;
	}
	return 0;
}

static void on_prof(int sig, siginfo_t *si, void *ucv) {
	(void)sig;
	int saved = errno;
	uint64_t t0 = timing ? vb_rdtsc() : 0;
	if (!my_tid) my_tid = (int32_t)syscall(SYS_gettid);
	record *r = find(my_tid, 0);
	if (!r || !r->slots) goto out;
	uint32_t h = r->head;
	if (h - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >= NSLOTS) {
		__atomic_fetch_add(&r->full, 1, __ATOMIC_RELAXED);
		goto out;
	}
	slot *s = &r->slots[h % NSLOTS];
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
	} else if (!on_stack(sp, lo, hi)) {
		flags |= WALK_OFFSTACK;
	} else {
		for (int i = 0; i < TOPWORDS && on_stack(sp + 8 * i, lo, hi); i++) s->top[i] = ((uintptr_t *)sp)[i];
		uintptr_t floor = sp;
		if (bp < sp || !on_stack(bp, lo, hi)) { // RBP is no frame pointer of this stack
			uintptr_t f = scan_frame(sp, lo, hi);
			if (f) bp = f, flags |= WALK_SCANNED;
		}
		for (;;) {
			if (bp == 0) {
				flags |= WALK_ROOTED;
				break;
			}
			if (bp < floor || !on_stack(bp, lo, hi)) {
				flags |= WALK_BROKEN;
				break;
			}
			uintptr_t next = ((uintptr_t *)bp)[0], ret = ((uintptr_t *)bp)[1];
			if (ret == 0) {
				flags |= WALK_ROOTED;
				break;
			}
			s->ip[n < LEAD ? n : LEAD + (n - LEAD) % RING] = ret;
			if (n < NUP) {
				if (bp + 16 + 8 * UPWORDS <= hi)
					for (int k = 0; k < UPWORDS; k++) s->up[n][k] = ((uintptr_t *)bp)[2 + k];
				else
					memset(s->up[n], 0, sizeof s->up[n]);
			}
			// An OSR method's frame record links straight to its caller's
			// caller: the real one (the Tier0 frame's, holding the same
			// saved frame pointer) lies higher, beyond the Tier0 locals.
			if (n < LEAD && s->nhid < NHIDDEN && next > bp + 16 && next <= hi - 16) {
				uintptr_t *w = (uintptr_t *)(bp + 16), *end = (uintptr_t *)next;
				if (end - w > SCAN) end = w + SCAN;
				for (; w < end; w++)
					if (*w == next) {
						s->hid_at[s->nhid] = n;
						s->hid_ret[s->nhid++] = w[1];
						break;
					}
			}
			n++;
			floor = bp + 16;
			bp = next;
		}
	}
	s->seen = n;
	if (__atomic_load_n(&vb_kernel_on, __ATOMIC_RELAXED)) flags |= WALK_KERNEL;
	s->flags = flags;
	// clock_gettime is async-signal-safe; only a wait tick's walk reads it.
	s->cpu_end = tag == WAIT_TAG ? vb_self_cpu_ns() : 0;
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
out:
	if (timing) {
		uint64_t d = vb_rdtsc() - t0;
		__atomic_fetch_add(&vb_cpu_handler_ns, (int64_t)d, __ATOMIC_RELAXED); // TSC ticks; converted when logged
		uint64_t b = d >> HSHIFT;
		__atomic_fetch_add(&handler_hist[b < HBUCKETS ? b : HBUCKETS - 1], 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&vb_cpu_handler_n, 1, __ATOMIC_RELAXED);
	}
	errno = saved;
}

// ---- registration (runtime callbacks, normal threads)

// stack_of sets r's stack range when the caller is the thread itself.
static void stack_of(record *r) {
	pthread_attr_t a;
	void *base;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &a) != 0) return;
	if (pthread_attr_getstack(&a, &base, &size) == 0) {
		__atomic_store_n(&r->lo, (uintptr_t)base, __ATOMIC_RELAXED);
		__atomic_store_n(&r->hi, (uintptr_t)base + size, __ATOMIC_RELEASE);
	}
	pthread_attr_destroy(&a);
}

static void drain_record(record *r);

// drain_in_callback drains r from inside a runtime callback, where the
// drain makes no runtime call that may lock or trigger a GC (see frame_at).
static void drain_in_callback(record *r) {
	in_callback = 1;
	drain_record(r);
	in_callback = 0;
}

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
static int64_t tick_reads;  // CPU clocks read by the directed threads' window checks
static int directed_off;    // VBENCH_CPU_TIMERS=1: timers only
static int directed_always; // VBENCH_CPU_DIRECTED=1: every thread directed from its registration (tests)
static int ndirected;
static pid_t self_pid; // and uid: a wait tick's sender, read once at start
static uid_t self_uid;

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
static int lost; // the program took SIGPROF: no more ticks (see check_handler)

static void arm(record *r, int32_t tid) {
	r->directed = 0;
	r->busy = 0;
	r->armed = 0; // until its timer runs: a failed timer_create leaves no stale one to delete
	if (lost) return;
	if (start_timer(vb_cpu_clock(tid), tid, 0, &r->timer) != 0) return;
	vb_cpu_ticks_timer++;
	r->armed = 1;
}

// direct moves r's ticks from its CPU-clock timer (if any) to a wall-clock
// timer whose ticks the handler weighs; 1: the thread is directed.
static int direct(record *r) {
	r->busy = 0;
	if (r->directed) return 1;
	if (lost || directed_off || __atomic_load_n(&ndirected, __ATOMIC_RELAXED) >= MAX_DIRECTED) return 0;
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
	__atomic_fetch_add(&ndirected, 1, __ATOMIC_RELAXED);
	vb_cpu_ticks_directed++;
	return 1;
}

// send_tick sends thread tid SIGPROF, to it alone, tagged (a wait's) and
// carrying the intervals it stands for; 0: sent.
static int send_tick(int32_t tid, int tag, uint32_t weight) {
	siginfo_t si;
	memset(&si, 0, sizeof si);
	si.si_signo = SIGPROF;
	si.si_code = SI_QUEUE;
	si.si_pid = self_pid;
	si.si_uid = self_uid;
	si.si_value.sival_int = tag << 16 | (int)weight;
	return (int)syscall(SYS_rt_tgsigqueueinfo, self_pid, tid, SIGPROF, &si);
}

// disarm stops r's ticks (a signal already sent is still handled: the
// handler finds the record, and the drain takes the slot).
static void disarm(record *r) {
	if (!r->armed) return;
	timer_delete(r->timer);
	if (r->directed) {
		r->directed = 0;
		__atomic_fetch_sub(&ndirected, 1, __ATOMIC_RELAXED);
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
static void check_directed(record *r, int64_t now) {
	if (!r->directed) return;
	uint32_t empty = __atomic_load_n(&r->empty, __ATOMIC_RELAXED), taken = r->pass_taken;
	empty -= r->pass_empty;
	r->pass_empty += empty;
	r->pass_taken = 0;
	int back = !directed_always && empty >= 2 && empty > taken;
	if (back) {
		vb_cpu_back_idle++;
	} else {
		int64_t cpu = vb_cpu_ns_of(r->tid);
		tick_reads++;
		if (cpu < 0) return; // gone: its record is disarmed when the runtime says so
		int64_t ran = cpu - r->pass_cpu, step = now - r->pass_ns;
		r->pass_cpu = cpu, r->pass_ns = now;
		if (!directed_always) {
			if (ran * 8 < step) back = 1, vb_cpu_back_idle++;
			if (now - r->win_start >= MOVE_BACK_NS) {
				back |= (cpu - r->win_cpu) * 4 < now - r->win_start;
				r->win_cpu = cpu, r->win_start = now;
			}
		}
	}
	if (!back) return;
	disarm(r);
	arm(r, r->tid);
	if (r->armed) {
		vb_cpu_ticks_timer--; // the same thread, back on a timer: counted apart
		vb_cpu_ticks_back++;
	}
}

// vb_cpu_thread_assigned: managed thread `managed` runs on kernel thread
// tid. Called by ThreadAssignedToOSThread (on the thread itself, measured
// on .NET 10; from another thread the drain learns the stack range from
// /proc/self/maps and the first samples keep only their leaf).
void vb_cpu_thread_assigned(ThreadID managed, int32_t tid) {
	if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE) || tid <= 0) return;
	pthread_mutex_lock(&reg);
	record *r = find(tid, 1);
	if (!r) goto done;
	disarm(r); // a thread with this id we were not told had ended
	if (r->managed && r->managed != managed) drain_in_callback(r);
	if (!r->slots) {
		void *p = mmap(0, NSLOTS * sizeof(slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) goto done;
		r->slots = p;
		used[nused++] = r;
	}
	if (r->managed != managed) {
		r->tree = 0;
		__atomic_store_n(&r->hi, 0, __ATOMIC_RELEASE);
		r->lo = 0;
		r->head = r->tail = 0;
	}
	r->managed = managed;
	r->wait = WAIT_NONE, r->wait_owed = 0, r->wait_cpu = -1, r->wait_leaf = 0, r->wait_line = 0;
	if ((int32_t)syscall(SYS_gettid) == tid) stack_of(r);
	if (!directed_always || !direct(r)) arm(r, tid); // no thread left without ticks
done:
	pthread_mutex_unlock(&reg);
}

// vb_cpu_thread_destroyed: the runtime is done with managed thread id.
void vb_cpu_thread_destroyed(ThreadID managed) {
	if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE)) return;
	pthread_mutex_lock(&reg);
	for (int i = 0; i < nused; i++) {
		record *r = used[i];
		if (r->tid && r->managed == managed && r->armed) {
			disarm(r);
			drain_in_callback(r);
			if (r->tree) vb_thread_cpu_ns(r->tree); // its last CPU time, before the id is reused
		}
	}
	pthread_mutex_unlock(&reg);
}

// ---- the drain thread

// An IP -> FunctionID cache (0: not managed code). Code is not freed under
// us but for collectible assemblies, whose IPs could then name a later
// method; the cache is cleared at each drain's start when it is half full.
#define CACHE (1u << 16)
static struct { uintptr_t ip; FunctionID fid; } cache[CACHE];
static uint32_t cached;
static int64_t lookups, hits;
static int64_t gffip_ns; // with VBENCH_CPU_TIMING=1: CPU time in GetFunctionFromIP

// ip_hash is the top bits of ip's Fibonacci hash: a cache's slot for it.
static uint32_t ip_hash(uintptr_t ip, int bits) { return (uint32_t)((ip * 0x9E3779B97F4A7C15ull) >> (64 - bits)); }

static FunctionID function_at(uintptr_t ip) {
	if (!ip) return 0;
	uint32_t i = ip_hash(ip, 16) % CACHE;
	lookups++;
	if (cache[i].ip == ip) {
		hits++;
		return cache[i].fid;
	}
	FunctionID f = 0;
	int64_t t0 = timing ? vb_self_cpu_ns() : 0;
	if (FAILED(VCALL(vb_info, INFO_GetFunctionFromIP, GetFunctionFromIP_t)(vb_info, (const uint8_t *)ip, &f))) f = 0;
	if (timing) gffip_ns += vb_self_cpu_ns() - t0;
	if (!cache[i].ip) cached++;
	cache[i].ip = ip;
	cache[i].fid = f;
	return f;
}

// ---- frameless frames
//
// The JIT keeps a frame pointer in every method but small optimised ones
// (no loop, at most 3 blocks, at most one call and that a direct one:
// ETW_EBP_FRAMED's rule), such as a forwarding overload like CoreLib's
// Thread.Join(). Such a method
// in the middle of a stack leaves RBP to its caller's frame: the chain goes
// from its callee's frame record to its caller's caller, and the caller is
// hidden. The caller's return address is the word just above the frameless
// method's own frame, whose size its prolog says (the pushes and the sub
// rsp before the body); the handler keeps the words above the leaf-most
// frame records (slot.up), and the drain reads the method's prolog.

// prolog_frame is the bytes a method's prolog at code puts below its return
// address, -1 when it keeps a frame pointer (its first instruction is push
// rbp) or the prolog is none the JIT writes for a frameless method with a
// call (which must move RSP: a call needs the stack 16-aligned).
static int32_t prolog_frame(const uint8_t *c) {
	int i = 0;
	uint32_t size = 0;
	if (c[0] == 0xC5 && c[1] == 0xF8 && c[2] == 0x77) i = 3; // vzeroupper
	if (c[i] == 0x55 || (c[i] == 0x40 && c[i + 1] == 0x55)) return -1;
	for (int k = 0; k < 8; k++) { // push rax/rbx/rsi/rdi..., push r8..r15
		if (c[i] >= 0x50 && c[i] <= 0x57 && c[i] != 0x54 && c[i] != 0x55) {
			size += 8, i++;
		} else if (c[i] == 0x41 && c[i + 1] >= 0x50 && c[i + 1] <= 0x57) {
			size += 8, i += 2;
		} else {
			break;
		}
	}
	if (c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xEC && c[i + 3] < 0x80) size += c[i + 3]; // sub rsp, imm8
	else if (c[i] == 0x48 && c[i + 1] == 0x81 && c[i + 2] == 0xEC) size += (uint32_t)c[i + 3] | (uint32_t)c[i + 4] << 8 | (uint32_t)c[i + 5] << 16 | (uint32_t)c[i + 6] << 24;
	// A method that calls leaves RSP 16-aligned: its frame is 8 mod 16 bytes
	// below its return address. Anything else is no prolog read right.
	return size % 16 == 8 && size < 4096 ? (int32_t)size : -1;
}

// copy reads n bytes of the process's memory at p into out without faulting
// (0: done): code named by a cache entry may have been freed since (a
// collectible assembly unloaded), and a fault here would end the program.
static int copy(void *out, uintptr_t p, size_t n) {
	struct iovec local = {out, n}, remote = {(void *)p, n};
	return process_vm_readv(self_pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

// An IP -> frame cache: what frame_at said of it.
#define FCACHE (1u << 14)
static struct { uintptr_t ip; int32_t frame; } fcache[FCACHE];
static int64_t vb_cpu_frameless_found;
static int64_t frame_at_calls; // frame_at's asking the runtime (GetNativeCodeStartAddresses, GetCodeInfo4)

// frame_at is prolog_frame of the code version of f that holds ip (a return
// address into it, less one), -1 when it keeps a frame pointer or its code
// cannot be found. Not from a runtime callback (the drain inside
// ThreadAssignedToOSThread or ThreadDestroyed): GetCodeInfo4 may trigger a
// GC, refused there, and GetNativeCodeStartAddresses takes the runtime's
// code-versioning lock; the frame then stays hidden, uncached.
static int32_t frame_at(FunctionID f, uintptr_t ip) {
	uint32_t i = ip_hash(ip, 14) % FCACHE;
	if (fcache[i].ip == ip) return fcache[i].frame;
	if (in_callback) return -1;
	frame_at_calls++;
	int32_t frame = -1;
	int found = 0;
	uintptr_t starts[8];
	uint32_t n = 0;
	if (!FAILED(VCALL(vb_info, INFO_GetNativeCodeStartAddresses, GetNativeCodeStartAddresses_t)(vb_info, f, 0, 8, &n, starts)))
		for (uint32_t k = 0; k < n && k < 8 && frame == -1; k++) {
			COR_PRF_CODE_INFO ci[4];
			uint32_t m = 0;
			if (FAILED(VCALL(vb_info, INFO_GetCodeInfo4, GetCodeInfo4_t)(vb_info, starts[k], 4, &m, ci))) continue;
			for (uint32_t j = 0; j < m && j < 4; j++)
				if (ip >= ci[j].start && ip < ci[j].start + ci[j].size) {
					uint8_t code[32];
					if (copy(code, starts[k], sizeof code) == 0) frame = prolog_frame(code), found = 1;
					break;
				}
		}
	if (!found) return -1; // not known now: asked again next time
	fcache[i].ip = ip;
	fcache[i].frame = frame;
	return frame;
}

// after_call reports whether ret is a return address: it follows one of
// the calls the JIT emits: E8 rel32; FF 15 [rip+disp32]; FF D0-D7 (call
// reg, 41 before it for r8-r15); FF 50-57 disp8 and FF 90-97 disp32 (call
// [reg+disp]).
static int after_call(uintptr_t ret) {
	uint8_t b[8];
	if (copy(b, ret - 8, 8) != 0) return 0;
	const uint8_t *c = b + 8; // c[-k]: the byte k before ret
	if (c[-5] == 0xE8) return 1;
	if (c[-6] == 0xFF && c[-5] == 0x15) return 1;
	if (c[-2] == 0xFF && c[-1] >= 0xD0 && c[-1] <= 0xD7) return 1;
	if (c[-3] == 0xFF && c[-2] >= 0x50 && c[-2] <= 0x57) return 1;
	if (c[-2] == 0xFF && c[-1] >= 0x10 && c[-1] <= 0x17 && c[-1] != 0x14 && c[-1] != 0x15) return 1; // call [reg]
	if (c[-6] == 0xFF && c[-5] >= 0x90 && c[-5] <= 0x97) return 1;
	return 0;
}

// hidden_caller is the method frame j's frameless method f hides, or 0:
// the return address into it lies above f's frame among slot.up[j].
static FunctionID hidden_caller(const slot *s, uint32_t j, FunctionID f, uintptr_t ret, uintptr_t *at) {
	if (j == 0 || j >= NUP) return 0;
	int32_t frame = frame_at(f, ret - 1);
	if (frame < 0 || frame / 8 >= UPWORDS) return 0;
	uintptr_t w = s->up[j][frame / 8];
	if (!w || w == ret) return 0;
	FunctionID c = function_at(w - 1); // first: only managed code's bytes are read
	if (!c || c == f || !after_call(w)) return 0;
	vb_cpu_frameless_found++;
	*at = w; // the return address into c: its call site
	return c;
}

// maps_range sets r's stack range from the mapping holding sp.
static void maps_range(record *r, uintptr_t sp) {
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f) return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		unsigned long a, b;
		if (sscanf(line, "%lx-%lx", &a, &b) == 2 && sp >= a && sp < b) {
			__atomic_store_n(&r->lo, (uintptr_t)a, __ATOMIC_RELAXED);
			__atomic_store_n(&r->hi, (uintptr_t)b, __ATOMIC_RELEASE);
			break;
		}
	}
	fclose(f);
}

#define MARK_INCOMPLETE ((FunctionID)-1)
#define MARK_ELIDED ((FunctionID)-2)

// A FunctionID -> record cache: merge's lookup of each frame's record
// without vb_fn_for_function's lock and its two tables' cache misses a
// frame (the drain's own, under reg like the IP cache; cleared with it).
#define FNCACHE (1u << 12)
static struct { FunctionID fid; vb_fn *fn; } fncache[FNCACHE];

static vb_fn *fn_of(FunctionID fid) {
	uint32_t i = ip_hash(fid, 12) % FNCACHE;
	if (fncache[i].fid == fid) return fncache[i].fn;
	vb_fn *f = vb_fn_for_function(fid);
	if (f) fncache[i].fid = fid, fncache[i].fn = f; // a record is never freed
	return f;
}

static vb_node *merge(vb_thread *t, vb_node *p, FunctionID fid, uint32_t w) {
	vb_fn *f = fid == MARK_INCOMPLETE ? &vb_incomplete_fn : fid == MARK_ELIDED ? &vb_elided_fn : fn_of(fid);
	if (!f) return p;
	vb_node *c = vb_node_child(t, p, f);
	if (c) c->incl_samples += w;
	return c;
}

// The IP of the slot's walk frame j (0: the leaf): the first LEAD in order,
// the rest round the ring (only the last RING of a deeper walk remain).
static uintptr_t frame_ip(const slot *s, uint32_t j) { return s->ip[j < LEAD ? j : LEAD + (j - LEAD) % RING]; }

// resolve turns a slot into FunctionIDs, leaf first, into out (unresolved
// frames dropped, MARK_ELIDED where a deep walk lost its middle); it returns
// how many, and whether the walk is rooted: its root-most frame is native
// code (every managed thread starts there), so no frame is missing above
// the managed ones. A walk whose last frame is managed stopped early (a
// broken chain, or only the leaf was taken). Return addresses are resolved
// at ip-1: a call that ends a method returns to the next one's first byte.
// rets[i] is the return address into out[i]'s code where the walk gave one
// (its call site), 0 where it is not known (the leaf, a marker).
static uint32_t resolve(const slot *s, FunctionID *out, uintptr_t *rets, int *rooted) {
	uint32_t n = 0, seen = s->seen;
	int last_managed = 0;
	// The IP cache's entries for every frame asked for at once: the drain
	// wakes to caches the sampled threads have since filled with their own
	// data, and one miss after another, a frame at a time, was most of
	// resolving's ~300 ns a frame (a hit is one load and a compare).
	for (uint32_t j = 0; j < seen; j++) {
		if (j == LEAD && seen > LEAD + RING) j = seen - RING;
		uintptr_t ip = frame_ip(s, j);
		__builtin_prefetch(&cache[ip_hash(j == 0 ? ip : ip - 1, 16) % CACHE]);
		if (j > 0 && j < NUP) __builtin_prefetch(&fcache[ip_hash(ip - 1, 14) % FCACHE]); // hidden_caller's frame_at
	}
	for (uint32_t j = 0; j < seen; j++) {
		if (j == LEAD && seen > LEAD + RING) {
			rets[n] = 0;
			out[n++] = MARK_ELIDED;
			j = seen - RING;
		}
		uintptr_t ip = frame_ip(s, j);
		FunctionID f = function_at(j == 0 ? ip : ip - 1);
		last_managed = f != 0;
		int same = f && n >= 1 && out[n - 1] == f; // the frame record is f's own (recursion, or OSR)
		if (j == 1 && n == 1 && out[0] != f) {
			// A leaf that keeps no frame (or stands in its epilogue) hides
			// its caller: RBP is still the caller's, whose own return
			// address the chain gave (or native code's, when the caller's
			// frame was already popped). The leaf's return address is then
			// among the words at the stack pointer: the first that names a
			// method names the caller, unless it is the leaf's own. Only
			// words below the frame record the chain started from: at or
			// above it lie the chain's own.
			for (int k = 0; k < TOPWORDS && s->sp0 + 8 * (uintptr_t)k < s->bp0; k++) {
				FunctionID c = s->top[k] ? function_at(s->top[k] - 1) : 0;
				if (!c) continue;
				if (c != out[0]) {
					rets[n] = s->top[k];
					out[n++] = c;
					vb_cpu_leaf_callers++;
				}
				same = f && c == f; // a frameless leaf called from f: the record is f's (recursion, or OSR)
				break;
			}
		} else if (j == 1 && n == 0 && f) {
			// An unresolved leaf (a stub: a precode, a call-counting
			// stub) called from f's OSR frame: the chain's return address
			// is a stale word of f's Tier0 frame, and f's caller hides as
			// below. The stub's return address is the first word at the
			// stack pointer that names a method; when that is f, f is the
			// stub's caller and its frame record f's own. Any other caller
			// is left out (a native leaf's locals may hold stale code
			// addresses): a dropped frame, never a wrong one.
			for (int k = 0; k < TOPWORDS && s->sp0 + 8 * (uintptr_t)k < s->bp0; k++) {
				FunctionID c = s->top[k] ? function_at(s->top[k] - 1) : 0;
				if (!c) continue;
				if (c == f) {
					rets[n] = s->top[k];
					out[n++] = c;
					same = 1;
					vb_cpu_leaf_callers++;
				}
				break;
			}
		}
		if (!f) {
			vb_cpu_unresolved++;
			continue;
		}
		rets[n] = j > 0 ? ip : 0;
		out[n++] = f;
		// A frameless method's caller, which the chain skips.
		uintptr_t hret = 0;
		FunctionID hc = j < LEAD && !same ? hidden_caller(s, j, f, ip, &hret) : 0;
		if (hc) {
			rets[n] = hret;
			out[n++] = hc;
		}
		// The frame of an OSR method (a loop's optimized code entered
		// mid-method) gives as return address a stale word of its Tier0
		// frame, in the same method: that frame is the hidden caller. An
		// OSR method that keeps no frame pointer (RBP still its Tier0
		// frame's caller's) hides that caller as a frameless method does:
		// its callee's record links past the Tier0 frame, whose own record
		// (hid_at) names the caller. Native code called from the OSR loop
		// (an allocation's GC) read "MakeLines" under <root>, Main lost.
		if (j < LEAD && (same || !hc))
			for (uint32_t k = 0; k < s->nhid; k++)
				if (s->hid_at[k] == j) {
					FunctionID c = function_at(s->hid_ret[k] - 1);
					if (c && c != f) {
						if (same) {
							out[n - 1] = c;
							rets[n - 1] = s->hid_ret[k];
						} else {
							rets[n] = s->hid_ret[k];
							out[n++] = c;
						}
						vb_cpu_osr++;
					}
					break;
				}
	}
	*rooted = !last_managed;
	return n;
}

static FunctionID resolved[LEAD + RING + NUP + NHIDDEN + 2];
static uintptr_t rets[LEAD + RING + NUP + NHIDDEN + 2];
static vb_node *nodes[LEAD + RING + NUP + NHIDDEN + 2];

static int64_t drain_resolve_ns; // with VBENCH_CPU_TIMING=1: of draining, resolving IPs
static int64_t drain_records_ns, drain_lines_ns, drain_waits_ns; // ... the rings (resolving, merging, lines), of them lines, the waits' checks
static int64_t drain_directed_ns; // ... directing threads and checking the directed ones (see check_directed)

// native_kind tells what code an IP with no managed frame above it lies
// in, from the shared object holding it: the JIT, the runtime (its GC too,
// unless the standalone GC is loaded), anything else native.
static int native_kind(uintptr_t ip) {
	Dl_info di;
	if (!ip || !dladdr((void *)ip, &di) || !di.dli_fname) return VB_NATIVE_OTHER;
	const char *b = strrchr(di.dli_fname, '/');
	b = b ? b + 1 : di.dli_fname;
	if (strncmp(b, "libclrjit", 9) == 0) return VB_NATIVE_JIT;
	if (strncmp(b, "libclrgc", 8) == 0) return VB_NATIVE_GC;
	if (strncmp(b, "libcoreclr", 10) == 0) return VB_NATIVE_RUNTIME;
	return VB_NATIVE_OTHER;
}

// note_sites adds the sample's weight to each user frame's call site
// (lines.c, site entries): the entry of the nearest user node below the
// frame (the callee as the profile shows it, frames outside the filter
// left out), at the return address into the frame. Frames whose return
// address the walk does not know get none: no line rather than a wrong
// one. held (a waiting stack) gets the entries, for the later weight.
static uint32_t note_sites(uint32_t n, uint32_t w, vb_lsample **held) {
	vb_node *below = nodes[0] && nodes[0]->fn && nodes[0]->fn->user ? nodes[0] : 0;
	uint32_t nheld = 0;
	for (uint32_t i = 1; i < n; i++) {
		vb_node *nd = nodes[i];
		if (!nd || nd == nodes[i - 1] || !nd->fn || !nd->fn->user) continue; // a frame merge skipped, or outside the filter
		if (nd->fn == &vb_incomplete_fn || nd->fn == &vb_elided_fn) {
			below = 0; // what lies beyond a marker is not this frame's callee
			continue;
		}
		if (below && rets[i] && function_at(rets[i] - 1) == resolved[i]) {
			vb_lsample *e = resolved[i - 1] < MARK_ELIDED ? vb_lines_note(below, resolved[i], rets[i] - 1, w, !in_callback, resolved[i - 1]) : 0;
			if (e && held && nheld < WAIT_SITES) held[nheld++] = e;
		}
		below = nd;
	}
	return nheld;
}

static void drain_record(record *r) {
	uint32_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	for (uint32_t t = r->tail; t != h; t++) {
		const slot *s = &r->slots[t % NSLOTS];
		if (t + 1 != h) { // the next slot's header and leaf-most frames, on their way while this one is merged
			const slot *x = &r->slots[(t + 1) % NSLOTS];
			__builtin_prefetch(x);
			for (int k = 0; k < 8; k++) __builtin_prefetch((const char *)x->ip + 64 * k);
		}
		int waiting = (s->flags & WALK_WAIT) != 0;
		uint32_t w = s->weight;
		if (waiting) {
			vb_cpu_wait_stacks++;
		} else {
			vb_cpu_signals++;
			vb_cpu_weight += w;
		}
		if (s->flags & WALK_ROOTED) vb_cpu_rooted++;
		if (s->flags & WALK_SCANNED) vb_cpu_scanned++;
		if (s->flags & WALK_BROKEN) vb_cpu_broken++;
		if (s->flags & WALK_OFFSTACK) vb_cpu_offstack++;
		if (s->flags & WALK_NORANGE) {
			vb_cpu_norange++;
			if (!__atomic_load_n(&r->hi, __ATOMIC_ACQUIRE) && r->seen_sp) maps_range(r, r->seen_sp);
		}
		vb_cpu_frames += s->seen;
		if (s->flags & WALK_DIRECTED) vb_cpu_directed_sent++, r->pass_taken++;
		else if (!waiting && w >= 2 && r->armed && !r->directed) r->busy = 1; // a CPU-clock timer's; not once disarmed: an ended thread
		int rooted = 0;
		int64_t r0 = timing ? vb_self_cpu_ns() : 0;
		uint32_t n = resolve(s, resolved, rets, &rooted);
		if (timing) drain_resolve_ns += vb_self_cpu_ns() - r0;
		if (dump > 0 && (waiting || (n > 0 && (vb_cpu_signals % 50) == 0))) {
			dump--;
			vb_log("cpu sample: flags %u seen %u top %lx %lx %lx %lx", s->flags, s->seen, (unsigned long)s->top[0], (unsigned long)s->top[1], (unsigned long)s->top[2], (unsigned long)s->top[3]);
			for (uint32_t j = 0; j < s->seen && j < 40; j++) {
				FunctionID f = function_at(j ? frame_ip(s, j) - 1 : frame_ip(s, j));
				vb_fn *fn = f ? vb_fn_for_function(f) : 0;
				vb_log("  %lx %s", (unsigned long)frame_ip(s, j), fn ? fn->name : "?");
			}
		}
		if (!r->tree) r->tree = vb_thread_new(r->tid, r->managed);
		vb_thread *th = r->tree;
		if (!th) continue;
		if (waiting) {
			// The stack a thread waits on: held (see waits) while it waits.
			int held = r->wait == WAIT_SENT;
			if (held) {
				r->wait = WAIT_HELD, r->wait_leaf = 0, r->wait_line = 0, r->nwait_sites = 0;
				// From the end of the walk on, it runs only if its wait ends
				// (then the check sees it): not from when the drain got here,
				// which would hide what it ran since.
				if (s->cpu_end > 0) r->wait_cpu = s->cpu_end;
			}
			if (n == 0) {
				r->wait_owed = 0; // idle in native code: not sampled, as the suspending sampler skips it
				continue;
			}
			w += held ? r->wait_owed : 0;
			r->wait_owed = 0;
			vb_cpu_wait_weight += w;
		}
		th->samples += w;
		th->root.incl_samples += w;
		if (n == 0) {
			// No managed frame: native code, or a walk that found none. Its
			// samples go to a frame named for the code it was in.
			vb_cpu_no_managed++;
			vb_node *c = vb_node_child(th, &th->root, &vb_native_fns[native_kind(frame_ip(s, 0))]);
			if (c) c->incl_samples += w, c->excl_samples += w;
			continue;
		}
		vb_node *p = &th->root;
		if (!rooted) {
			vb_cpu_incomplete++;
			p = merge(th, p, MARK_INCOMPLETE, w);
		}
		if (s->seen > LEAD + RING) vb_stacks_elided++;
		for (uint32_t i = n; i-- > 0 && p;) nodes[i] = p = merge(th, p, resolved[i], w);
		if (p && p != &th->root) p->excl_samples += w;
		uint32_t nsites = 0;
		if (vb_lines && p && p != &th->root) {
			int64_t l0 = timing ? vb_self_cpu_ns() : 0;
			nsites = note_sites(n, w, waiting ? r->wait_sites : 0);
			if (timing) drain_lines_ns += vb_self_cpu_ns() - l0;
		}
		if (s->flags & WALK_KERNEL) vb_kernel_add(th, p, w);
		vb_lsample *line = 0;
		if (vb_lines && p && p != &th->root) {
			// The leaf's own IP when the leaf frame is the interrupted one
			// (not a caller standing in for an unresolved stub).
			uintptr_t ip = frame_ip(s, 0);
			int64_t l0 = timing ? vb_self_cpu_ns() : 0;
			if (function_at(ip) == resolved[0]) line = vb_lines_note(p, resolved[0], ip, w, !in_callback, 0);
			if (timing) drain_lines_ns += vb_self_cpu_ns() - l0;
		}
		if (waiting && r->wait == WAIT_HELD && p != &th->root) r->wait_leaf = p, r->wait_line = line, r->nwait_sites = nsites;
	}
	__atomic_store_n(&r->tail, h, __ATOMIC_RELEASE);
	vb_cpu_full += (int64_t)__atomic_exchange_n(&r->full, 0, __ATOMIC_RELAXED);
}

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
// for threads that did not run.
static int runnable(int32_t tid) {
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
	if (__atomic_load_n(&vb_kernel_on, __ATOMIC_RELAXED)) vb_kernel_add(r->tree, r->wait_leaf, w);
	if (r->wait_line) r->wait_line->w += w;
	for (uint32_t k = 0; k < r->nwait_sites; k++) r->wait_sites[k]->w += w;
	r->tree->samples += w;
	vb_cpu_wait_weight += w;
}

static void waits(void) {
	int64_t now = vb_mono_ns();
	if (!wait_last_ns) wait_last_ns = now;
	int64_t step = now - wait_last_ns;
	if (waits_off || step < WAIT_NS) return;
	wait_last_ns = now;
	int64_t due = (step + wait_rem_ns) / vb_interval_ns;
	wait_rem_ns = (step + wait_rem_ns) % vb_interval_ns;
	uint32_t w = due > MAX_WEIGHT ? MAX_WEIGHT : (uint32_t)due;
	for (int i = 0; i < nused; i++) {
		record *r = used[i];
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
		if (runnable(r->tid)) {
			r->wait = WAIT_NONE;
			r->wait_owed = 0;
			vb_cpu_wait_runnable++;
			continue;
		}
		uint32_t wt = w;
		if (wt == 0) continue;
		switch (r->wait) {
		case WAIT_NONE: {
			if (send_tick(r->tid, WAIT_TAG, wt) == 0) {
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

// check_handler, at every pass of the drain (under reg), makes sure SIGPROF
// still runs on_prof. A program that took it (signal(SIGPROF, SIG_IGN), a
// handler of its own) gets no sample after that, and its profile would be
// a believable one of a few samples: the engine stops every tick (the
// program's handler is left to the program, and a SIG_DFL no tick of ours
// ends the process), says so on stderr, and the profile is marked
// incomplete with vb_cpu_lost_what as its cause (main.go). Never taken
// back: the handler is the program's to choose. A SIG_DFL mostly kills
// the process at the next tick, before any pass can see it
// (docs/sampling.md). One rt_sigaction per pass, off the hot path.
char vb_cpu_lost_what[256]; // what SIGPROF now does, "" while it is ours
int64_t vb_cpu_lost_ns;     // when the drain saw it, since the profiler started (0: not seen)
static void check_handler(void) {
	struct sigaction a;
	if (lost || sigaction(SIGPROF, 0, &a) != 0) return;
	void *h = (a.sa_flags & SA_SIGINFO) ? (void *)a.sa_sigaction : (void *)a.sa_handler;
	if (h == (void *)on_prof) return;
	lost = 1;
	for (int i = 0; i < nused; i++) disarm(used[i]);
	Dl_info di; // the text first: a stop signal's write may read it while the drain runs
	if (h == (void *)SIG_IGN)
		snprintf(vb_cpu_lost_what, sizeof vb_cpu_lost_what, "ignored (SIG_IGN)");
	else if (h == (void *)SIG_DFL)
		snprintf(vb_cpu_lost_what, sizeof vb_cpu_lost_what, "reset to its default action (SIG_DFL), which ends the process");
	else if (dladdr(h, &di) && di.dli_sname)
		snprintf(vb_cpu_lost_what, sizeof vb_cpu_lost_what, "a handler of its own (%s in %s)", di.dli_sname, di.dli_fname);
	else
		snprintf(vb_cpu_lost_what, sizeof vb_cpu_lost_what, "a handler of its own (%p)", h);
	__atomic_store_n(&vb_cpu_lost_ns, vb_mono_ns() - (int64_t)vb_mono_start_ns, __ATOMIC_RELEASE);
	vb_err("the program took SIGPROF, the sampling engine's signal, %.2f s in: it is now %s; sampling stopped, the profile will say so (complete: false)",
		(double)vb_cpu_lost_ns / 1e9, vb_cpu_lost_what);
}

static void drain_all(void) {
	pthread_mutex_lock(&reg);
	check_handler();
	if (cached > CACHE / 2) {
		memset(cache, 0, sizeof cache);
		memset(fcache, 0, sizeof fcache);
		memset(fncache, 0, sizeof fncache);
		cached = 0;
	}
	int64_t now = __atomic_load_n(&ndirected, __ATOMIC_RELAXED) > 0 ? vb_mono_ns() : 0;
	for (int i = 0; i < nused; i++) {
		record *r = used[i];
		if (r->tid && r->slots && r->head != r->tail) {
			int64_t d0 = timing ? vb_self_cpu_ns() : 0;
			drain_record(r);
			if (timing) drain_records_ns += vb_self_cpu_ns() - d0;
		}
		if (r->directed || (r->busy && r->armed)) {
			int64_t c0 = timing ? vb_self_cpu_ns() : 0;
			if (r->directed && now) check_directed(r, now);
			if (r->busy && r->armed) direct(r);
			if (timing) drain_directed_ns += vb_self_cpu_ns() - c0;
		}
		r->busy = 0;
	}
	int64_t w0 = timing ? vb_self_cpu_ns() : 0;
	waits();
	if (timing) drain_waits_ns += vb_self_cpu_ns() - w0;
	if (vb_lines && !in_callback) {
		int64_t l0 = timing ? vb_self_cpu_ns() : 0;
		vb_lines_settle();
		if (timing) drain_lines_ns += vb_self_cpu_ns() - l0;
	}
	vb_samples_taken++;
	pthread_mutex_unlock(&reg);
}

static int64_t drain_cpu_ns; // the drain thread's CPU time, read as it ends (the debug log says it)
static int64_t drain_merge_ns;              // with VBENCH_CPU_TIMING=1: of it, draining (drain_all)
static int64_t drain_wakes, drain_sleep_ns; // the loop's wake-ups; with VBENCH_CPU_TIMING=1 CPU time in its sleep's system call

// drain_loop drains every DRAIN_NS. No tick waits for it (directed ticks
// come from each thread's own wall-clock timer: see direct), so it wakes
// only to empty the rings (a ring holds NSLOTS ticks of one thread, at
// least NSLOTS intervals of wall time), to check the waits (WAIT_NS) and
// the directed threads: a wake-up is the drain's dearest part
// (docs/notebook/measurements.md, "Where a sample's time goes"), now paid once for
// every busy thread's twenty samples rather than once or twice a sample
// (at 10 ms, measured, the wake-ups cost ~1 us more a sample). The price:
// a directed thread that blocks is woken by its ticks until the next pass
// gives it its CPU-clock timer back (see check_directed), 20 intervals at
// most; and a busy thread waits up to 20 ms on its CPU-clock timer before
// it is directed.
#define DRAIN_NS 20000000
static void *drain_loop(void *arg) {
	(void)arg;
	int64_t next = vb_mono_ns();
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int64_t now = vb_mono_ns();
		next += DRAIN_NS;
		// Late (the machine is busy, the drain thread waited for a CPU): one
		// wake-up now, not one for every step missed.
		if (next < now) next = now;
		struct timespec ts = {next / 1000000000, next % 1000000000};
		int64_t z0 = timing ? vb_self_cpu_ns() : 0;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0);
		drain_wakes++;
		int64_t t0 = timing ? vb_self_cpu_ns() : 0;
		if (timing) drain_sleep_ns += t0 - z0;
		drain_all();
		if (timing) drain_merge_ns += vb_self_cpu_ns() - t0;
	}
	drain_cpu_ns = vb_self_cpu_ns();
	return 0;
}

// block_in_onstack_handlers adds SIGPROF to the mask of every handler that
// runs on the alternate signal stack (CoreCLR's SIGSEGV handler, which
// detects stack overflows there). A tick landing in such a handler is
// delivered on the 16 KiB stack it is already using, and its signal frame
// (the kernel's, with the xsave area, is kilobytes) overflowed it: the
// stress program, which dereferences null every round, died of SIGSEGV in
// 4 of 5 runs. The fault signals are blocked too, for the same reason,
// whatever their flags; a wrapper installed later (crash.c) copies the mask.
static int prof_blocked_in[65]; // the signals whose handler's mask got SIGPROF here (a detach takes it out)

static void block_in_onstack_handlers(void) {
	for (int sig = 1; sig < 65; sig++) {
		struct sigaction a;
		if (sig == SIGKILL || sig == SIGSTOP || sig == SIGPROF || sigaction(sig, 0, &a) != 0) continue;
		void *h = (a.sa_flags & SA_SIGINFO) ? (void *)a.sa_sigaction : (void *)a.sa_handler;
		if (h == (void *)SIG_DFL || h == (void *)SIG_IGN) continue;
		int fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP;
		if (!(a.sa_flags & SA_ONSTACK) && !fault) continue;
		if (sigismember(&a.sa_mask, SIGPROF)) continue;
		sigaddset(&a.sa_mask, SIGPROF);
		if (sigaction(sig, &a, 0) == 0) {
			prof_blocked_in[sig] = 1;
			vb_log("cpu sampler: SIGPROF blocked while signal %d's handler runs", sig);
		}
	}
}

// vb_cpu_exception_thrown, at ExceptionThrown on the throwing thread (the
// engine asks for exception callbacks for this alone): the fault handlers
// run with SIGPROF blocked (block_in_onstack_handlers), and when CoreCLR
// turns a fault into a managed exception (NullReferenceException,
// DivideByZeroException) it leaves its handler for the exception's
// dispatch without returning, so the handler's mask stayed: SIGPROF
// blocked on that thread for good (CoreCLR unblocks only the fault's signal
// and its activation signal). Every thread that took one went unsampled
// (the stress program's workers: 24 samples for 881 ms of CPU at 1 ms).
// Unblocked here only on the thread's own stack, never on the alternate
// stack the handler began on.
int64_t vb_cpu_unblocked;
void vb_cpu_exception_thrown(void) {
	sigset_t now;
	if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE) || pthread_sigmask(SIG_BLOCK, 0, &now) != 0 || !sigismember(&now, SIGPROF)) return;
	if (!my_tid) my_tid = (int32_t)syscall(SYS_gettid);
	record *r = find(my_tid, 0);
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	if (!r || !on_stack(sp, __atomic_load_n(&r->lo, __ATOMIC_RELAXED), __atomic_load_n(&r->hi, __ATOMIC_ACQUIRE))) return;
	sigset_t prof;
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	pthread_sigmask(SIG_UNBLOCK, &prof, 0);
	__atomic_fetch_add(&vb_cpu_unblocked, 1, __ATOMIC_RELAXED);
}

static struct sigaction prof_before; // SIGPROF's disposition before the engine took it (vb_cpu_release_signal)

int vb_sampling_start(void) {
	struct sigaction now;
	if (sigaction(SIGPROF, 0, &now) != 0) return -1;
	prof_before = now;
	void *h = (now.sa_flags & SA_SIGINFO) ? (void *)now.sa_sigaction : (void *)now.sa_handler;
	if (h != (void *)SIG_DFL && h != (void *)SIG_IGN) {
		vb_err("SIGPROF already has a handler (%p): the cpu-sampling engine will not take it over", h);
		return -1;
	}
	const char *tm = getenv("VBENCH_CPU_TIMING");
	timing = tm && *tm && strcmp(tm, "0") != 0;
	const char *ct = getenv("VBENCH_CPU_TIMERS"); // 1: CPU-clock timers only
	directed_off = ct && *ct && strcmp(ct, "0") != 0;
	const char *cd = getenv("VBENCH_CPU_DIRECTED"); // 1: every thread directed from its registration (tests)
	directed_always = !directed_off && cd && *cd && strcmp(cd, "0") != 0;
	self_pid = getpid();
	self_uid = getuid();
	const char *wt = getenv("VBENCH_CPU_WAITS"); // 0: CPU time only, waits not sampled
	waits_off = wt && strcmp(wt, "0") == 0;
	const char *ln = getenv("VBENCH_LINES"); // 1: each sample's leaf IP mapped to its IL offset (lines.c)
	if (ln && *ln && strcmp(ln, "0") != 0) vb_lines = vb_lines_init() == 0;
	const char *dm = getenv("VBENCH_CPU_DUMP"); // debugging: log the first N samples' frames
	dump = dm ? atoi(dm) : 0;
	// The drain's caches written once here, before any tick: a page of
	// .bss first read maps the shared zero page, and the drain's first write
	// to it then copies it and flushes the TLB of every CPU running the
	// program (an IPI each): measured, ~3 ms of the drain's CPU in a
	// 0.5 s run, most of a sample's cost in the first few hundred.
	memset(cache, 0, sizeof cache);
	memset(fcache, 0, sizeof fcache);
	memset(fncache, 0, sizeof fncache);
	struct sigaction sa = {0};
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART; // no SA_ONSTACK: see above
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, 0) != 0) return -1;
	block_in_onstack_handlers();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&drainer, 0, drain_loop, 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	if (rc != 0) return -1;
	__atomic_store_n(&running, 1, __ATOMIC_RELEASE);
	return 0;
}

// vb_sampling_stop_within deletes every timer, stops the drain thread (waiting
// at most ms, < 0: for ever) and drains what is left. -1: the drain thread
// still runs (a crash: it may wait on a lock the crashing thread holds).
int vb_sampling_stop_within(int ms) {
	if (!__atomic_exchange_n(&running, 0, __ATOMIC_ACQ_REL)) return 0;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	if (vb_join_within(drainer, ms) != 0) {
		vb_log("cpu sampler: drain thread still running after %d ms; its trees are read as they stand", ms);
		return -1;
	}
	pthread_mutex_lock(&reg);
	for (int i = 0; i < NRECORDS; i++) disarm(&records[i]);
	pthread_mutex_unlock(&reg);
	in_callback = 1; // at Shutdown or a crash: no runtime call that locks (see frame_at)
	drain_all();
	int64_t empty = 0; // directed ticks the handler found nothing to sample for
	for (int i = 0; i < nused; i++) empty += used[i]->empty;
	vb_log("cpu sampler: %ld signals (weight %ld), %ld frames walked; walks rooted %ld, broken %ld, off the thread's stack %ld, before its range was known %ld; "
		"frames unresolved %ld, samples with no managed frame %ld, not rooted %ld, leaf callers found at the stack pointer %ld, OSR callers %ld, callers of frameless methods %ld; samples lost (ring full) %ld; timers not made %ld; threads given CPU-clock timers %d, threads directed %d (ticks sent %ld by their wall-clock timers, empty %ld: the thread had not run half an interval), moved back to a timer %d (%ld as they stopped running); waits: %ld ticks sent, %ld stacks, weight %ld, %ld checks found the thread runnable (waiting for a CPU: no wait); walks started by a scan for a frame record %ld; IP cache %ld of %ld lookups",
		(long)vb_cpu_signals, (long)vb_cpu_weight, (long)vb_cpu_frames, (long)vb_cpu_rooted, (long)vb_cpu_broken, (long)vb_cpu_offstack, (long)vb_cpu_norange,
		(long)vb_cpu_unresolved, (long)vb_cpu_no_managed, (long)vb_cpu_incomplete, (long)vb_cpu_leaf_callers, (long)vb_cpu_osr, (long)vb_cpu_frameless_found, (long)vb_cpu_full, (long)vb_cpu_timer_fail, vb_cpu_ticks_timer, vb_cpu_ticks_directed, (long)vb_cpu_directed_sent, (long)empty, vb_cpu_ticks_back, (long)vb_cpu_back_idle, (long)vb_cpu_wait_sent, (long)vb_cpu_wait_stacks, (long)vb_cpu_wait_weight, (long)vb_cpu_wait_runnable, (long)vb_cpu_scanned, (long)hits, (long)lookups);
	vb_log("cpu sampler: SIGPROF unblocked on a thread after a fault became an exception %ld times", (long)vb_cpu_unblocked);
	vb_log("cpu sampler: the drain thread used %.1f ms of CPU over %.1f ms", (double)drain_cpu_ns / 1e6, (double)(vb_mono_ns() - (int64_t)vb_mono_start_ns) / 1e6);
	if (timing) vb_log("cpu sampler: of it, draining %.1f ms (resolving IPs %.1f ms; %ld GetFunctionFromIP calls)", (double)drain_merge_ns / 1e6, (double)drain_resolve_ns / 1e6, (long)(lookups - hits));
	if (timing) {
		// What one timing read costs, to subtract: the split's parts are each
		// bracketed by two.
		int64_t c0 = vb_self_cpu_ns();
		for (int i = 0; i < 1000; i++) vb_self_cpu_ns();
		double read_ns = (double)(vb_self_cpu_ns() - c0) / 1001;
		vb_log("cpu sampler: split (CPU ms): %ld wake-ups, sleeping's system call %.2f; ticks %.2f (directing, and checking the directed: %ld clock reads, 0 sends: sending 0.00); rings %.2f (resolving %.2f: GetFunctionFromIP %.2f in %ld calls; lines %.2f; code lookups for frameless callers %ld), waits' checks %.2f; a timing read %.0f ns",
			(long)drain_wakes, (double)drain_sleep_ns / 1e6, (double)drain_directed_ns / 1e6, (long)tick_reads,
			(double)drain_records_ns / 1e6, (double)drain_resolve_ns / 1e6, (double)gffip_ns / 1e6, (long)(lookups - hits), (double)drain_lines_ns / 1e6, (long)frame_at_calls, (double)drain_waits_ns / 1e6, read_ns);
	}
	if (timing && vb_cpu_handler_n) {
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
	return 0;
}

// ---- attach and detach (attach.c)

// vb_cpu_register_running, after an attach: threads that ran before the
// profiler came get no ThreadAssignedToOSThread, so each managed thread the
// runtime lists gets its record and timer here (from this thread: the
// drain learns their stack ranges from /proc/self/maps). A thread the
// callback reports meanwhile is registered once: records are found by id.
// The number registered; -1: the runtime listed none.
int vb_cpu_register_running(void) {
	IUnknown *e = 0;
	if (FAILED(VCALL(vb_info, INFO_EnumThreads, EnumThreads_t)(vb_info, &e)) || !e) return -1;
	int n = 0;
	ThreadID id;
	ULONG got = 0;
	while (VCALL(e, TENUM_Next, Next_t)(e, 1, &id, &got) == S_OK && got == 1) {
		uint32_t os = 0;
		if (FAILED(VCALL(vb_info, INFO_GetThreadInfo, GetThreadInfo_t)(vb_info, id, &os)) || os == 0) continue; // not started yet: the callback will come
		vb_cpu_thread_assigned(id, (int32_t)os);
		n++;
	}
	VCALL(e, UNK_Release, Release_t)(e);
	vb_log("cpu sampler: %d running threads registered after attach", n);
	return n;
}

// vb_cpu_release_signal, at a detach, after the stop (every timer deleted,
// the drain joined: no tick of ours is sent any more): a SIGPROF generated
// before its timer went may still be pending on a thread (for ever on one
// that blocks it), and must not reach a stopped engine, nor a SIG_DFL that
// would end the process. SIG_IGN discards every pending one (POSIX); then
// the disposition the process had before the engine goes back. A program
// that took SIGPROF meanwhile (check_handler) keeps its own.
void vb_cpu_release_signal(void) {
	struct sigaction now, ign;
	if (sigaction(SIGPROF, 0, &now) != 0) return;
	void *h = (now.sa_flags & SA_SIGINFO) ? (void *)now.sa_sigaction : (void *)now.sa_handler;
	if (h != (void *)on_prof) return;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPROF, &ign, 0);
	sigaction(SIGPROF, &prof_before, 0);
	// The handlers' masks as they were: a fault that becomes an exception
	// would otherwise leave SIGPROF blocked on its thread for good, with
	// no ExceptionThrown of ours to unblock it.
	for (int sig = 1; sig < 65; sig++) {
		struct sigaction a;
		if (!prof_blocked_in[sig] || sigaction(sig, 0, &a) != 0) continue;
		prof_blocked_in[sig] = 0;
		if (!sigismember(&a.sa_mask, SIGPROF)) continue;
		sigdelset(&a.sa_mask, SIGPROF);
		sigaction(sig, &a, 0);
	}
	vb_log("cpu sampler: SIGPROF given back (pending ticks discarded), the handlers' masks as they were");
}

// vb_sampling_reset, at a later attach to the same process (the library
// stays loaded after a detach): the last attach's threads and counts are
// forgotten; records keep their slots for good.
void vb_sampling_reset(void) {
	pthread_mutex_lock(&reg);
	for (int i = 0; i < NRECORDS; i++) {
		slot *s = records[i].slots;
		memset(&records[i], 0, sizeof records[i]);
		records[i].slots = s;
	}
	stop = 0, lost = 0, ndirected = 0, cached = 0, in_callback = 0;
	vb_cpu_signals = vb_cpu_weight = vb_cpu_full = vb_cpu_rooted = vb_cpu_broken = vb_cpu_offstack = vb_cpu_norange = 0;
	vb_cpu_frames = vb_cpu_unresolved = vb_cpu_incomplete = vb_cpu_osr = vb_cpu_no_managed = vb_cpu_leaf_callers = vb_cpu_timer_fail = 0;
	vb_cpu_wait_sent = vb_cpu_wait_stacks = vb_cpu_wait_weight = vb_cpu_scanned = 0;
	vb_cpu_ticks_timer = vb_cpu_ticks_directed = vb_cpu_ticks_back = 0;
	vb_cpu_directed_sent = vb_cpu_back_idle = 0;
	vb_cpu_lost_what[0] = 0;
	vb_cpu_lost_ns = 0;
	pthread_mutex_unlock(&reg);
}
