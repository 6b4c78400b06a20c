// COM plumbing and the CLR-facing callbacks. Every entry point CoreCLR calls
// is C (or the asm stubs): the class factory, the ICorProfilerCallback3
// vtable, FunctionIDMapper2, the exception callbacks. Go runs only in three
// cold places (Initialize: wait for the Go runtime and read the
// configuration; Shutdown/exit: write the profile), always with SIGRTMIN
// blocked around the call (mask_rtmin) so CoreCLR's suspension signal never
// lands on a goroutine stack. See doc.go.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "vb.h"
#include "clsid.h"
#include "_cgo_export.h"

static const GUID CLSID_vbench = VB_CLSID_INIT;

char vb_runtime_version[64];
static int initialized, written;

static int env_true(const char *name) {
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

// ---- the trampoline into Go: SIGRTMIN (and SIGPROF, the sampling engine's
// tick) blocked for the duration of the call, and the signals that stop the
// process (a thread running Go is on a goroutine stack; a process-wide SIGINT
// goes to a thread that does not block it).
static void mask_rtmin(sigset_t *old) {
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGRTMIN);
	vb_add_stop_signals(&s);
	sigaddset(&s, SIGPROF); // the sampling engine's tick (sampling.c)
	pthread_sigmask(SIG_BLOCK, &s, old);
}
static void unmask(sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, 0); }

// Called by Go (vbGoConfigure) with the parsed configuration.
void vb_configure(int mode, int64_t interval_ns, const char *include, const char *exclude) {
	vb_mode = mode;
	if (interval_ns > 0) vb_interval_ns = interval_ns;
	const char *ln = getenv("VBENCH_LINES"); // instrumentation: count every basic block (instr.c); sampling reads it itself
	if (mode == VB_MODE_INSTRUMENTATION) vb_lines = ln && *ln && strcmp(ln, "0") != 0;
	vb_filter_set(include, exclude);
}

// Called by Go: n == 1 times every call; else hot nodes are timed on a random
// ~1/n of their calls (n a power of two).
void vb_set_time_sample(int n) {
	if (n <= 1) {
		vb_exact_calls = INT64_MAX;
		return;
	}
	vb_time_mask = 2 * (uint64_t)n - 1;
}

// vb_write writes the profile once (from Shutdown, the exit path or a
// crash), except that a stop signal's profile (written before the runtime's
// SIGINT/SIGQUIT/SIGTERM handler runs, crash.c) is replaced by Shutdown's
// if the process lives on to it. One writer at a time: a crash or a signal
// during Shutdown's write waits for it (bounded by crash.c's wait) instead
// of ending the process half way through it. Never called in a signal
// handler.
static uint64_t unwind_pops;
static pthread_mutex_t write_mu = PTHREAD_MUTEX_INITIALIZER;

enum { WRITE_SHUTDOWN, WRITE_EXIT, WRITE_CRASH, WRITE_INTERRUPT };

// cause: NULL from Shutdown; why the profile is incomplete otherwise.
static void vb_write(int complete, const char *cause, int how) {
	if (!initialized) return;
	pthread_mutex_lock(&write_mu);
	// written: 0 nothing yet, 1 final, 2 a stop signal's (replaceable).
	if (written == 1 || (written == 2 && how != WRITE_SHUTDOWN)) {
		pthread_mutex_unlock(&write_mu);
		return;
	}
	if (written == 2) vb_log("Shutdown came after all: its complete profile replaces the interrupted one");
	written = how == WRITE_INTERRUPT ? 2 : 1;
	vb_log("hooks handed to C: %lu enters, %lu leaves; frames popped by unwind callbacks %lu, by a mismatched leave %lu; arena used %lu bytes",
		(unsigned long)vb_slow_enters, (unsigned long)vb_slow_leaves, (unsigned long)unwind_pops,
		(unsigned long)vb_mismatch_pops, (unsigned long)vb_arena_used());
	vb_log("JIT compilations: %lu", (unsigned long)vb_jit_compilations);
	if (vb_mode == VB_MODE_INSTRUMENTATION)
		vb_log("instrumentation: %lu methods rewritten in %lu ms (locals signatures: %lu reused, %lu new), %lu left alone; precompiled bodies refused %lu, inlines refused %lu; frames closed by fault handlers %lu",
			(unsigned long)vb_instr_rewritten, (unsigned long)(vb_instr_rewrite_ns / 1000000), (unsigned long)vb_instr_sig_hits,
			(unsigned long)vb_instr_sig_misses, (unsigned long)vb_instr_skipped, (unsigned long)vb_instr_refused_r2r,
			(unsigned long)vb_instr_refused_inlines, (unsigned long)vb_iunwinds);
	// A stop signal's write leaves the sampler running (its trees are read
	// as they stand): the process may live on to Shutdown.
	if (vb_mode == VB_MODE_SUSPEND_SAMPLING) {
		if (how == WRITE_CRASH)
			vb_suspend_sampling_stop_within(2000);
		else if (how != WRITE_INTERRUPT)
			vb_suspend_sampling_stop();
	}
	if (vb_mode == VB_MODE_SAMPLING && how != WRITE_INTERRUPT) vb_sampling_stop_within(how == WRITE_CRASH ? 2000 : -1);
	// The allocation tables' IPs, resolved once (a second write, after a
	// stop signal's, resolves again what arrived since).
	if (vb_mode == VB_MODE_ALLOCATIONS || vb_mode == VB_MODE_ALLOCATION_SAMPLING) {
		vb_alloc_resolve();
		vb_log("allocations: %lu objects reported, %lu samples (%lu unreadable), %lu folded, %lu walks cut short, tables %lu bytes; %lu GCs (%lu induced), pauses %lu us",
			(unsigned long)vb_alloc_objects, (unsigned long)vb_asample_events, (unsigned long)vb_asample_bad, (unsigned long)vb_alloc_folded,
			(unsigned long)vb_alloc_walk_short, (unsigned long)vb_alloc_memory(), (unsigned long)vb_gc_count, (unsigned long)vb_gc_induced,
			(unsigned long)(vb_gc_pause_ns / 1000));
	}
	sigset_t old;
	mask_rtmin(&old);
	vbGoWrite(complete, (char *)(cause ? cause : ""));
	unmask(&old);
	pthread_mutex_unlock(&write_mu);
}

static void at_exit(void) { vb_write(0, "exit before the runtime's Shutdown (exit() called outside the runtime's exit path)", WRITE_EXIT); }
static void at_crash(const char *cause, int interrupt) { vb_write(0, cause, interrupt ? WRITE_INTERRUPT : WRITE_CRASH); }

// ---- FunctionIDMapper2: decide once per function whether to hook it. The
// client ID is the function's record, so the hooks need no lookup.
static uintptr_t mapper(FunctionID fid, void *client, BOOL *hook) {
	(void)client;
	vb_fn *f = vb_fn_for_function(fid);
	if (!f || !f->user) {
		*hook = 0;
		return fid;
	}
	*hook = 1;
	return (uintptr_t)f;
}

// ---- ICorProfilerCallback3
typedef struct {
	void **vtbl;
} object;
static void *callback_vtbl[CB_SLOTS];
static object callback = {callback_vtbl};

// ICorProfilerCallback10 (EventPipeEventDelivered) is answered only for
// allocation-sampling, which needs it: the runtime asks before Initialize,
// so the mode is read from the environment here. Every other engine stays
// a Callback3 profiler, as it was measured.
// An attach (no VBENCH_MODE in the target's environment: the mode comes in
// the client data, after this question) answers it too, in case the mode
// is allocation-sampling.
static int wants_callback10(void) {
	const char *m = getenv("VBENCH_MODE");
	return !m || strcmp(m, "allocation-sampling") == 0;
}

static HRESULT cb_qi(void *self, const GUID *iid, void **out) {
	if (guid_eq(iid, &IID_IUnknown_) || guid_eq(iid, &IID_ICorProfilerCallback_) ||
		guid_eq(iid, &IID_ICorProfilerCallback2_) || guid_eq(iid, &IID_ICorProfilerCallback3_) ||
		(guid_eq(iid, &IID_ICorProfilerCallback10_) && wants_callback10())) {
		*out = self;
		return S_OK;
	}
	*out = 0;
	return E_NOINTERFACE;
}
// One static object: reference counting has nothing to free.
static ULONG cb_addref(void *self) { (void)self; return 2; }
static ULONG cb_release(void *self) { (void)self; return 1; }
// Every callback we do not handle: all return HRESULT, extra arguments are ignored.
static HRESULT cb_ok(void) { return S_OK; }

// vb_start is Initialize, and InitializeForAttach (attach.c) with the
// client data that carries an attach's configuration (data != 0).
HRESULT vb_start(IUnknown *unk, const void *data, uint32_t ndata) {
	static int go_ready, arena_ready, exit_hook;
	int attaching = data != 0;
	if (!attaching) {
		const char *dbg = getenv("VBENCH_DEBUG");
		vb_debug = dbg && *dbg && strcmp(dbg, "0") != 0;
	}
	vb_clock_start();

	// The first call into Go blocks until the Go runtime (initialised on its
	// own thread after dlopen) is ready; only then are its signal changes
	// done. Once: a later attach finds Go up, and the handlers are the
	// program's to change since.
	sigset_t old;
	if (!go_ready) {
		mask_rtmin(&old);
		vbGoReady();
		unmask(&old);
		vb_signals_unblock_stops(); // Go's threads have them blocked for good (signals.c)
#ifdef VB_TEST_HOOKS
		// A slow first Initialize (a busy machine): the time an attach's
		// process runs with the library loaded before Initialize's fix.
		const char *d = getenv("VBENCH_DEBUG_INIT_DELAY_MS");
		if (d) usleep((useconds_t)atoi(d) * 1000);
#endif
		vb_log("SIGRTMIN(%d) flags after Go init: 0x%x", SIGRTMIN, vb_sigrtmin_flags());
		vb_signals_fix();
		vb_log("SIGRTMIN(%d) flags now: 0x%x", SIGRTMIN, vb_sigrtmin_flags());
		go_ready = 1;
	}

	mask_rtmin(&old);
	// Each prints its own reason on failure (an attach's into its log file).
	// No VBENCH_MODE in the environment: the settings may be in the
	// runtime's (a start-up through a diagnostic port, attach.c).
	const char *port = attaching || getenv("VBENCH_MODE") ? 0 : vb_runtime_settings(unk);
	int rc = attaching ? vbGoConfigureAttach((char *)data, (int)ndata) : port ? vbGoConfigureFrom((char *)port) : vbGoConfigure();
	if (port) vb_debug = env_true("VBENCH_DEBUG");
	unmask(&old);
	// Not a process VBENCH_PROCESSES selects: the HRESULT profilers return
	// to decline quietly (CoreCLR logs no error; the program runs unprofiled).
	if (rc == 1) return CORPROF_E_PROFILER_CANCEL_ACTIVATION;
	if (rc != 0) return E_FAIL;

	void *info = 0;
	HRESULT hr = VCALL(unk, UNK_QueryInterface, QI_t)(unk, &IID_ICorProfilerInfo10_, &info);
	if (FAILED(hr) || !info) {
		vb_err("QueryInterface(ICorProfilerInfo10) failed (hr=0x%08x): this runtime is too old (need .NET Core 3.0+); running unprofiled", (unsigned)hr);
		return E_FAIL;
	}
	vb_info = info;

	uint16_t maj = 0, min = 0, build = 0, qfe = 0, inst = 0;
	int rtype = 0;
	ULONG n = 0;
	WCHAR wv[64];
	if (!FAILED(VCALL(vb_info, INFO_GetRuntimeInformation, GetRuntimeInformation_t)(vb_info, &inst, &rtype, &maj, &min, &build, &qfe, 64, &n, wv)))
		snprintf(vb_runtime_version, sizeof vb_runtime_version, "%u.%u.%u", maj, min, build);

	if (!arena_ready) {
		if (vb_arena_init() != 0) {
			vb_err("cannot reserve the call-tree arena; running unprofiled");
			return E_FAIL;
		}
		vb_tree_thread_key_init();
		arena_ready = 1;
	}

	uint32_t mask = 0, high = 0;
	switch (vb_mode) {
	// JIT_COMPILATION brings JITInlining, where we keep hooked functions from
	// being inlined (an inlined callee's enter/leave never fire). The null
	// engine does the same, so it stays the floor of exactly this tracer.
	case VB_MODE_TRACING:
		mask = COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_JIT_COMPILATION;
		if (vb_tl_on) { // the timeline's GCs (gc.c)
			mask |= COR_PRF_MONITOR_SUSPENDS;
			high = COR_PRF_HIGH_BASIC_GC;
		}
		break;
	case VB_MODE_NULL:
		mask = COR_PRF_MONITOR_ENTERLEAVE | COR_PRF_MONITOR_JIT_COMPILATION;
		break;
	// Instrumentation: no enter/leave hooks, so the runtime keeps using
	// precompiled code; the JIT callbacks rewrite selected methods, the cache
	// searches refuse their precompiled bodies, module unloads forget the
	// module's signature token.
	case VB_MODE_INSTRUMENTATION:
		mask = COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_MONITOR_MODULE_LOADS;
		break;
	case VB_MODE_SUSPEND_SAMPLING:
		// Stack snapshots show no inlined frames. By default the sampler
		// leaves the JIT alone (lowest overhead); VBENCH_SAMPLING_NOINLINE=1
		// keeps user methods (but tiny ones) from being inlined, so samples
		// land on the methods tracing and the source show.
		mask = COR_PRF_ENABLE_STACK_SNAPSHOT;
		if (env_true("VBENCH_SAMPLING_NOINLINE")) mask |= COR_PRF_MONITOR_JIT_COMPILATION;
		if (vb_tl_on) mask |= COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_SUSPENDS, high = COR_PRF_HIGH_BASIC_GC; // the timeline's throws and GCs
		break;
	// allocations: every object (ObjectAllocated; ENABLE_OBJECT_ALLOCATED
	// must be asked for at Initialize). Both allocation engines: the GCs
	// (BASIC_GC: Started/Finished without the heavy GC callbacks) and the
	// suspensions that time their pauses.
	case VB_MODE_ALLOCATIONS:
		mask = COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_MONITOR_SUSPENDS;
		high = COR_PRF_HIGH_BASIC_GC;
		break;
	case VB_MODE_ALLOCATION_SAMPLING:
		mask = COR_PRF_MONITOR_SUSPENDS;
		high = COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_EVENT_PIPE;
		break;
	// sampling: the thread callbacks arm and disarm each thread's timer;
	// ExceptionThrown gives SIGPROF back to a thread whose fault became an
	// exception (vb_cpu_exception_thrown).
	case VB_MODE_SAMPLING:
		mask = COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_EXCEPTIONS;
		if (env_true("VBENCH_SAMPLING_NOINLINE")) mask |= COR_PRF_MONITOR_JIT_COMPILATION;
		if (vb_tl_on) mask |= COR_PRF_MONITOR_SUSPENDS, high = COR_PRF_HIGH_BASIC_GC; // the timeline's GCs
		break;
	}
	// Hooking everything (--include '*') also means framework code: make the
	// runtime JIT it (with hooks) instead of using its precompiled images.
	const char *inc = getenv("VBENCH_INCLUDE");
	if ((vb_mode == VB_MODE_TRACING || vb_mode == VB_MODE_NULL) && inc && strcmp(inc, "*") == 0) mask |= COR_PRF_DISABLE_ALL_NGEN_IMAGES;
	hr = VCALL(vb_info, INFO_SetEventMask2, SetEventMask2_t)(vb_info, mask, high);
	if (FAILED(hr)) {
		vb_err("SetEventMask2(0x%x) failed (hr=0x%08x); running unprofiled", mask, (unsigned)hr);
		return E_FAIL;
	}
	if (vb_mode == VB_MODE_TRACING || vb_mode == VB_MODE_NULL) {
		hr = VCALL(vb_info, INFO_SetFunctionIDMapper2, SetMapper2_t)(vb_info, (void *)mapper, 0);
		if (!FAILED(hr)) {
			if (vb_mode == VB_MODE_TRACING && vb_tl_on)
				hr = VCALL(vb_info, INFO_SetEnterLeaveFunctionHooks3, SetHooks3_t)(vb_info, (void *)vb_tl_enter_stub, (void *)vb_tl_leave_stub, (void *)vb_tl_leave_stub);
			else if (vb_mode == VB_MODE_TRACING)
				hr = VCALL(vb_info, INFO_SetEnterLeaveFunctionHooks3, SetHooks3_t)(vb_info, (void *)vb_enter_stub, (void *)vb_leave_stub, (void *)vb_tailcall_stub);
			else
				hr = VCALL(vb_info, INFO_SetEnterLeaveFunctionHooks3, SetHooks3_t)(vb_info, (void *)vb_null_stub, (void *)vb_null_stub, (void *)vb_null_stub);
		}
		if (FAILED(hr)) {
			vb_err("registering the enter/leave hooks failed (hr=0x%08x); running unprofiled", (unsigned)hr);
			return E_FAIL;
		}
	}
	if ((vb_mode == VB_MODE_ALLOCATIONS || vb_mode == VB_MODE_ALLOCATION_SAMPLING) && vb_alloc_init() != 0) {
		vb_err("cannot reserve the allocation tables; running unprofiled");
		return E_FAIL;
	}
	if (vb_mode == VB_MODE_ALLOCATION_SAMPLING && vb_asample_start(maj) != 0) return E_FAIL; // it said why
	if (vb_mode == VB_MODE_SAMPLING && vb_sampling_start() != 0) {
		vb_err("cannot start the cpu-sampling engine; running unprofiled");
		return E_FAIL;
	}
	if (vb_mode == VB_MODE_SUSPEND_SAMPLING && vb_suspend_sampling_start() != 0) {
		vb_err("cannot start the sampling thread; running unprofiled");
		return E_FAIL;
	}
	initialized = 1;
	if (!exit_hook) atexit(at_exit);
	exit_hook = 1;
	// Not for an attach: its hooks in libcoreclr and the signal wrappers
	// would outlive the detach (a crash while attached loses the profile).
	if (!attaching) vb_crash_init(at_crash); // without it (logged), a crash loses the profile
	mask_rtmin(&old);
	vbGoStarted(); // this process's directory and started.json
	unmask(&old);
	vb_log("initialized: mode %s, runtime %s, event mask 0x%x", vb_mode_name(vb_mode), vb_runtime_version, mask);
	return S_OK;
}

static HRESULT cb_initialize(void *self, IUnknown *unk) {
	(void)self;
	return vb_start(unk, 0, 0);
}

// vb_attach_stop ends an attach's profiling before RequestProfilerDetach
// (attach.c): the engine stopped, its signal given back, its last samples
// resolved and the profile built in memory, since names need the runtime,
// which the profiler may not call once the detach is asked for; the files
// are written at ProfilerDetachSucceeded (vb_attach_write). -1: Shutdown
// (or the exit path) wrote the profile first.
int vb_attach_stop(void) {
	pthread_mutex_lock(&write_mu);
	if (!initialized || written) {
		pthread_mutex_unlock(&write_mu);
		return -1;
	}
	written = 1;
	if (vb_mode == VB_MODE_SAMPLING) {
		vb_sampling_stop_within(-1);
		vb_cpu_release_signal();
	}
	if (vb_mode == VB_MODE_ALLOCATION_SAMPLING) vb_alloc_resolve();
	sigset_t old;
	mask_rtmin(&old);
	vbGoHold();
	unmask(&old);
	if (vb_mode == VB_MODE_ALLOCATION_SAMPLING) vb_asample_stop();
	pthread_mutex_unlock(&write_mu);
	return 0;
}

void vb_attach_write(void) {
	sigset_t old;
	mask_rtmin(&old);
	vbGoWriteHeld();
	unmask(&old);
}

// vb_profiler_reset, at a later attach to the same process: the last
// attach's profile is written and its trees are not the next one's.
void vb_profiler_reset(void) {
	pthread_mutex_lock(&write_mu);
	initialized = written = 0;
	pthread_mutex_unlock(&write_mu);
	vb_threads_forget();
	vb_sampling_reset();
	vb_samples_taken = 0;
}

static HRESULT cb_shutdown(void *self) {
	(void)self;
	vb_log("Shutdown");
	vb_write(1, 0, WRITE_SHUTDOWN);
	return S_OK;
}

// JITInlining. Tracing: a hooked callee must not be inlined, or its calls
// vanish. Sampling with VBENCH_SAMPLING_NOINLINE=1: stack snapshots show no
// inlined frames, so user methods stay visible, except tiny ones (IL <= 16 bytes, the JIT's always-inline
// size: there the call would cost more than the body) and a method inlined
// into itself (recursion: the samples land on the same function anyway).
#define VB_TINY_IL 16
static HRESULT cb_jit_inlining(void *self, FunctionID caller, FunctionID callee, BOOL *should) {
	(void)self;
	if (vb_mode == VB_MODE_INSTRUMENTATION) {
		if (!vb_instr_may_inline(callee)) *should = 0;
		return S_OK;
	}
	vb_fn *f = vb_fn_for_function(callee);
	if (!f || !f->user) return S_OK;
	if (vb_mode != VB_MODE_SUSPEND_SAMPLING && vb_mode != VB_MODE_SAMPLING) {
		*should = 0;
		return S_OK;
	}
	if (f->il_size > VB_TINY_IL && vb_fn_for_function(caller) != f) *should = 0;
	return S_OK;
}

// JIT compilations: counted in every mode (VBENCH_DEBUG shows how many
// methods a run JIT-compiled); instrumentation rewrites selected methods here,
// before the runtime reads their IL.
static HRESULT cb_jit_started(void *self, FunctionID fid, BOOL safe) {
	(void)self;
	(void)safe;
	if (vb_mode == VB_MODE_INSTRUMENTATION)
		vb_instr_jit_started(fid);
	else
		__atomic_fetch_add(&vb_jit_compilations, 1, __ATOMIC_RELAXED);
	if (vb_tl_on) vb_tl_jit_started(fid);
	return S_OK;
}

static HRESULT cb_jit_finished(void *self, FunctionID fid, HRESULT status, BOOL safe) {
	(void)self, (void)fid, (void)status, (void)safe;
	if (vb_mode == VB_MODE_INSTRUMENTATION) vb_instr_jit_finished();
	if (vb_tl_on) vb_tl_jit_finished(fid);
	return S_OK;
}

static HRESULT cb_cache_search(void *self, FunctionID fid, BOOL *use) {
	(void)self;
	if (vb_mode == VB_MODE_INSTRUMENTATION && !vb_instr_use_precompiled(fid)) *use = 0;
	return S_OK;
}

static HRESULT cb_module_unload_started(void *self, ModuleID mid) {
	(void)self;
	if (vb_mode == VB_MODE_INSTRUMENTATION) vb_instr_module_unloaded(mid);
	return S_OK;
}

// Tracing's exception callbacks also tell a crash's cause: the class of an
// exception thrown with no catcher found is what an abort() then reports.
static HRESULT cb_exception_thrown(void *self, ObjectID obj) {
	(void)self;
	if (vb_mode == VB_MODE_SAMPLING) {
		vb_cpu_exception_thrown();
		if (vb_tl_on) vb_tl_exception(obj);
		return S_OK;
	}
	vb_crash_thrown(obj);
	if (vb_tl_on) vb_tl_exception(obj);
	return S_OK;
}
static HRESULT cb_catcher_found(void *self, FunctionID fid) {
	(void)self, (void)fid;
	if (vb_mode == VB_MODE_SAMPLING) return S_OK;
	vb_crash_caught();
	return S_OK;
}

static HRESULT cb_unwind_enter(void *self, FunctionID fid) {
	(void)self;
	vb_thread *t = vb_tls_thread;
	if (t != &vb_nothread) t->unwind_fid = fid;
	return S_OK;
}

// The unwinder has popped the frame of t->unwind_fid: pop our frame too if it
// is that (hooked) function. Frames of unhooked functions are unwound as well
// and have no frame of ours.
static HRESULT cb_unwind_leave(void *self) {
	(void)self;
	vb_thread *t = vb_tls_thread;
	if (t == &vb_nothread || !t->unwind_fid) return S_OK;
	vb_fn *f = vb_fn_lookup(t->unwind_fid);
	t->unwind_fid = 0;
	if (!f || !f->user) return S_OK;
	vb_tl *l = t->tl;
	if (l && l->depth > VB_TL_DEPTH)
		l->depth--;
	else if (l && l->depth && l->stack[l->depth - 1].fn == f)
		vb_tl_pop(l, f, vb_rdtsc());
	if (t->lost) {
		vb_lost_pop(t);
		return S_OK;
	}
	if (t->active->fn == f && vb_pop_to(t, f)) __atomic_fetch_add(&unwind_pops, 1, __ATOMIC_RELAXED);
	return S_OK;
}

// Threads (sampling): a managed thread gets its CPU timer when the
// runtime says which OS thread runs it, loses it when the runtime is done.
static HRESULT cb_thread_assigned(void *self, ThreadID managed, uint32_t os_tid) {
	(void)self;
	vb_log("thread %lx assigned to OS thread %u (on thread %ld)", (unsigned long)managed, os_tid, (long)syscall(SYS_gettid));
	if (vb_mode == VB_MODE_SAMPLING) vb_cpu_thread_assigned(managed, (int32_t)os_tid);
	return S_OK;
}
static HRESULT cb_thread_destroyed(void *self, ThreadID managed) {
	(void)self;
	if (vb_mode == VB_MODE_SAMPLING) vb_cpu_thread_destroyed(managed);
	return S_OK;
}

// ---- IClassFactory
static HRESULT cf_qi(void *self, const GUID *iid, void **out) {
	if (guid_eq(iid, &IID_IUnknown_) || guid_eq(iid, &IID_IClassFactory_)) {
		*out = self;
		return S_OK;
	}
	*out = 0;
	return E_NOINTERFACE;
}
static HRESULT cf_create(void *self, void *outer, const GUID *iid, void **out) {
	(void)self;
	if (outer) return CLASS_E_NOAGGREGATION;
	return cb_qi(&callback, iid, out);
}
static HRESULT cf_lock(void *self, BOOL lock) { (void)self; (void)lock; return S_OK; }
static void *factory_vtbl[] = {(void *)cf_qi, (void *)cb_addref, (void *)cb_release, (void *)cf_create, (void *)cf_lock};
static object factory = {factory_vtbl};

__attribute__((constructor)) static void init_vtables(void) {
	for (int i = 0; i < CB_SLOTS; i++) callback_vtbl[i] = (void *)cb_ok;
	callback_vtbl[0] = (void *)cb_qi;
	callback_vtbl[1] = (void *)cb_addref;
	callback_vtbl[2] = (void *)cb_release;
	callback_vtbl[CB_Initialize] = (void *)cb_initialize;
	callback_vtbl[CB_Shutdown] = (void *)cb_shutdown;
	callback_vtbl[CB_JITInlining] = (void *)cb_jit_inlining;
	callback_vtbl[CB_JITCompilationStarted] = (void *)cb_jit_started;
	callback_vtbl[CB_JITCompilationFinished] = (void *)cb_jit_finished;
	callback_vtbl[CB_JITCachedFunctionSearchStarted] = (void *)cb_cache_search;
	callback_vtbl[CB_ModuleUnloadStarted] = (void *)cb_module_unload_started;
	callback_vtbl[CB_ThreadAssignedToOSThread] = (void *)cb_thread_assigned;
	callback_vtbl[CB_ThreadDestroyed] = (void *)cb_thread_destroyed;
	callback_vtbl[CB_ExceptionThrown] = (void *)cb_exception_thrown;
	callback_vtbl[CB_ExceptionSearchCatcherFound] = (void *)cb_catcher_found;
	callback_vtbl[CB_ExceptionUnwindFunctionEnter] = (void *)cb_unwind_enter;
	callback_vtbl[CB_ExceptionUnwindFunctionLeave] = (void *)cb_unwind_leave;
	// The allocation engines' (only their event masks make them fire).
	callback_vtbl[CB_ObjectAllocated] = (void *)vb_object_allocated;
	callback_vtbl[CB_RuntimeSuspendStarted] = (void *)vb_gc_suspend_started;
	callback_vtbl[CB_RuntimeResumeFinished] = (void *)vb_gc_resume_finished;
	callback_vtbl[CB_GarbageCollectionStarted] = (void *)vb_gc_started;
	callback_vtbl[CB_EventPipeEventDelivered] = (void *)vb_asample_delivered;
	// Attach and detach (attach.c).
	callback_vtbl[CB_InitializeForAttach] = (void *)vb_initialize_for_attach;
	callback_vtbl[CB_ProfilerAttachComplete] = (void *)vb_attach_complete;
	callback_vtbl[CB_ProfilerDetachSucceeded] = (void *)vb_detach_succeeded;
}

// DllGetClassObject is the library's COM entry point, called by CoreCLR
// after dlopen with our CLSID.
__attribute__((visibility("default"))) HRESULT DllGetClassObject(const GUID *clsid, const GUID *iid, void **out) {
	if (!out) return E_INVALIDARG;
	*out = 0;
	if (!guid_eq(clsid, &CLSID_vbench)) return CLASS_E_CLASSNOTAVAILABLE;
	return cf_qi(&factory, iid, out);
}
