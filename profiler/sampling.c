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
// it is no longer ours, stops every tick and says why (see check_handler,
// sampling_drain.c).
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
// Walks (fpwalk.h, shared with alloc.c): the leaf is the interrupted IP;
// each frame above it is the return address at [rbp+8], the next frame at
// [rbp], which must lie higher on the same stack. CoreCLR's JIT keeps RBP frames for all but small methods (leaves, and forwarders of one call)
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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sampling.h"

// Settings, read at the start (the timers' in sampling_timers.c).
int vb_cpu_timing, vb_cpu_dump, vb_cpu_waits_off;
int vb_cpu_in_callback;

// Counters (VBENCH_DEBUG=1 logs them; the profile warns on losses).
int64_t vb_cpu_signals, vb_cpu_weight, vb_cpu_full, vb_cpu_rooted, vb_cpu_broken, vb_cpu_offstack, vb_cpu_norange;
int64_t vb_cpu_frames, vb_cpu_unresolved, vb_cpu_incomplete, vb_cpu_osr, vb_cpu_no_managed, vb_cpu_leaf_callers, vb_cpu_timer_fail;
int64_t vb_cpu_wait_sent, vb_cpu_wait_stacks, vb_cpu_wait_weight; // see waits
int64_t vb_cpu_scanned; // walks started at a frame record found by scan_frame

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
	if (!__atomic_load_n(&vb_cpu_running, __ATOMIC_ACQUIRE) || pthread_sigmask(SIG_BLOCK, 0, &now) != 0 || !sigismember(&now, SIGPROF)) return;
	if (!vb_cpu_my_tid) vb_cpu_my_tid = (int32_t)syscall(SYS_gettid);
	record *r = find(vb_cpu_my_tid, 0);
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	if (!r || !vb_on_stack(sp, __atomic_load_n(&r->lo, __ATOMIC_RELAXED), __atomic_load_n(&r->hi, __ATOMIC_ACQUIRE))) return;
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
	vb_cpu_timing = tm && *tm && strcmp(tm, "0") != 0;
	const char *ct = getenv("VBENCH_CPU_TIMERS"); // 1: CPU-clock timers only
	vb_cpu_directed_off = ct && *ct && strcmp(ct, "0") != 0;
	const char *cd = getenv("VBENCH_CPU_DIRECTED"); // 1: every thread directed from its registration (tests)
	vb_cpu_directed_always = !vb_cpu_directed_off && cd && *cd && strcmp(cd, "0") != 0;
	vb_cpu_self_pid = getpid();
	vb_cpu_self_uid = getuid();
	const char *wt = getenv("VBENCH_CPU_WAITS"); // 0: CPU time only, waits not sampled
	vb_cpu_waits_off = wt && strcmp(wt, "0") == 0;
	const char *ln = getenv("VBENCH_LINES"); // 1: each sample's leaf IP mapped to its IL offset (lines.c)
	if (ln && *ln && strcmp(ln, "0") != 0) vb_lines = vb_lines_init() == 0;
	const char *dm = getenv("VBENCH_CPU_DUMP"); // debugging: log the first N samples' frames
	vb_cpu_dump = dm ? atoi(dm) : 0;
#ifdef VB_TEST_HOOKS
	const char *ap = getenv("VBENCH_DEBUG_ASSIGN_PAUSE_MS"); // a new thread's registration waits (sampling_threads.c)
	vb_cpu_assign_pause_ms = ap ? atoi(ap) : 0;
#endif
	// The drain's caches written once here, before any tick: a page of
	// .bss first read maps the shared zero page, and the drain's first write
	// to it then copies it and flushes the TLB of every CPU running the
	// program (an IPI each): measured, ~3 ms of the drain's CPU in a
	// 0.5 s run, most of a sample's cost in the first few hundred.
	vb_cpu_caches_clear();
	struct sigaction sa = {0};
	sa.sa_sigaction = vb_cpu_on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART; // no SA_ONSTACK: see above
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, 0) != 0) return -1;
	block_in_onstack_handlers();
	if (vb_cpu_drain_start() != 0) return -1;
	__atomic_store_n(&vb_cpu_running, 1, __ATOMIC_RELEASE);
	return 0;
}

// vb_sampling_stop_within deletes every timer, stops the drain thread (waiting
// at most ms, < 0: for ever) and drains what is left. -1: the drain thread
// still runs (a crash: it may wait on a lock the crashing thread holds).
int vb_sampling_stop_within(int ms) {
	if (!__atomic_exchange_n(&vb_cpu_running, 0, __ATOMIC_ACQ_REL)) return 0;
	if (vb_cpu_drain_stop_within(ms) != 0) {
		vb_log("cpu sampler: drain thread still running after %d ms; its trees are read as they stand", ms);
		return -1;
	}
	// The flag is clear and the drain gone: a registration arms only with
	// the flag read set under reg (vb_cpu_thread_assigned), so none arms after this.
	pthread_mutex_lock(&vb_cpu_reg);
	for (int i = 0; i < NRECORDS; i++) vb_cpu_disarm(&vb_cpu_records[i]);
	pthread_mutex_unlock(&vb_cpu_reg);
	vb_cpu_in_callback = 1; // at Shutdown or a crash: no runtime call that locks (see frame_at)
	vb_cpu_drain_all();
	int64_t empty = 0; // directed ticks the handler found nothing to sample for
	for (int i = 0; i < vb_cpu_nused; i++) empty += vb_cpu_used[i]->empty;
	vb_log("cpu sampler: %ld signals (weight %ld), %ld frames walked; walks rooted %ld, broken %ld, off the thread's stack %ld, before its range was known %ld; "
		"frames unresolved %ld, samples with no managed frame %ld, not rooted %ld, leaf callers found at the stack pointer %ld, OSR callers %ld, callers of frameless methods %ld; samples lost (ring full) %ld; timers not made %ld; threads given CPU-clock timers %d, threads directed %d (ticks sent %ld by their wall-clock timers, empty %ld: the thread had not run half an interval), moved back to a timer %d (%ld as they stopped running; %ld times kept directed as runnable); waits: %ld ticks sent, %ld stacks, weight %ld, %ld checks found the thread runnable (waiting for a CPU: no wait); walks started by a scan for a frame record %ld; IP cache %ld of %ld lookups",
		(long)vb_cpu_signals, (long)vb_cpu_weight, (long)vb_cpu_frames, (long)vb_cpu_rooted, (long)vb_cpu_broken, (long)vb_cpu_offstack, (long)vb_cpu_norange,
		(long)vb_cpu_unresolved, (long)vb_cpu_no_managed, (long)vb_cpu_incomplete, (long)vb_cpu_leaf_callers, (long)vb_cpu_osr, (long)vb_cpu_frameless_found, (long)vb_cpu_full, (long)vb_cpu_timer_fail, vb_cpu_ticks_timer, vb_cpu_ticks_directed, (long)vb_cpu_directed_sent, (long)empty, vb_cpu_ticks_back, (long)vb_cpu_back_idle, (long)vb_cpu_kept_runnable, (long)vb_cpu_wait_sent, (long)vb_cpu_wait_stacks, (long)vb_cpu_wait_weight, (long)vb_cpu_wait_runnable, (long)vb_cpu_scanned, (long)vb_cpu_hits, (long)vb_cpu_lookups);
	vb_log("cpu sampler: SIGPROF unblocked on a thread after a fault became an exception %ld times", (long)vb_cpu_unblocked);
	vb_cpu_drain_log();
	vb_cpu_handler_log();
	return 0;
}

// ---- attach and detach (attach.c; the running threads: sampling_threads.c)

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
	if (h != (void *)vb_cpu_on_prof) return;
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
	pthread_mutex_lock(&vb_cpu_reg);
	for (int i = 0; i < NRECORDS; i++) {
		slot *s = vb_cpu_records[i].slots;
		memset(&vb_cpu_records[i], 0, sizeof vb_cpu_records[i]);
		vb_cpu_records[i].slots = s;
	}
	vb_cpu_lost = 0, vb_cpu_ndirected = 0, vb_cpu_cached = 0, vb_cpu_in_callback = 0; // the drain's stop flag: at its start
	vb_cpu_signals = vb_cpu_weight = vb_cpu_full = vb_cpu_rooted = vb_cpu_broken = vb_cpu_offstack = vb_cpu_norange = 0;
	vb_cpu_frames = vb_cpu_unresolved = vb_cpu_incomplete = vb_cpu_osr = vb_cpu_no_managed = vb_cpu_leaf_callers = vb_cpu_timer_fail = 0;
	vb_cpu_wait_sent = vb_cpu_wait_stacks = vb_cpu_wait_weight = vb_cpu_scanned = 0;
	vb_cpu_ticks_timer = vb_cpu_ticks_directed = vb_cpu_ticks_back = 0;
	vb_cpu_directed_sent = vb_cpu_back_idle = vb_cpu_kept_runnable = 0;
	vb_cpu_lost_what[0] = 0;
	vb_cpu_lost_ns = 0;
	pthread_mutex_unlock(&vb_cpu_reg);
}
