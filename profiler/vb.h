// Shared state of the vbench profiler's C core. See doc.go for the design.
#ifndef VB_H
#define VB_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>
#include "com.h"

// Modes: their one definition (config.go reads it through cgo).
enum { VB_MODE_NULL = 1, VB_MODE_TRACING = 2, VB_MODE_SUSPEND_SAMPLING = 3, VB_MODE_INSTRUMENTATION = 4, VB_MODE_SAMPLING = 5,
	VB_MODE_ALLOCATIONS = 6, VB_MODE_ALLOCATION_SAMPLING = 7 };

// Instrumentation state of a function record (instr.c).
enum { VB_INSTR_NONE = 0, VB_INSTR_DONE = 1, VB_INSTR_SKIPPED = 2 };

// One profiled function: every FunctionID of one method (module + methodDef
// token; all generic instantiations) maps to one record. Its address is the
// client ID the ELT hooks receive, so the hot path needs no lookup.
typedef struct vb_fn {
	uint32_t id;      // index in the function table (vb_fn_at)
	uint8_t user;     // passes the include/exclude filter (hooked in tracing)
	uint32_t il_size; // IL code bytes (0: unknown)
	ModuleID module_id;
	mdToken token;
	char *name;       // Namespace.Type.Method, UTF-8
	char *module;     // module file name, e.g. App.dll
	char *module_path; // the module's path as loaded ("" when unknown)
	char *assembly;   // assembly simple name
	char *type_name;  // namespace-qualified type name (filter input)
	uint8_t instr;    // instrumentation: VB_INSTR_*
	uint32_t instr_epoch;     // instrumentation: rewrite number (see instr.c)
	const char *skip_reason;  // instrumentation: why the method was left alone
} vb_fn;

// One call path of one thread. A node is on the stack at most once at a time
// (the path from the root is unique), so the open frame's start time lives in
// the node itself.
typedef struct vb_node {
	vb_fn *fn;                 // NULL for a thread's root sentinel
	struct vb_node *parent;
	struct vb_node *first;     // children, newest first; published with release stores
	struct vb_node *next;      // sibling
	struct vb_node *hint;      // last child found, never NULL (vb_no_child); lists never reorder
	uint64_t calls;            // exact
	uint64_t incl_ticks;       // inclusive TSC ticks of the timed, closed frames
	uint64_t timed;            // how many closed frames incl_ticks covers
	uint64_t start;            // TSC at enter of the open frame; 0: not timed (reset on close)
	uint64_t incl_samples;     // sampling: stacks containing this path
	uint64_t excl_samples;     // sampling: stacks ending here
	int64_t countdown;         // calls until the next timed one (1: the next)
	struct vb_node *hint2;     // the child found before hint (never NULL): a loop calling
	                           // two functions in turn finds both without a list walk
	uint64_t min_ticks;        // the shortest timed frame closed in C, plus 1 (0: none): under
	                           // instrumentation every timed frame (snapshot.go's tooShort)
	uint64_t kincl_samples;    // sampling: of incl_samples and excl_samples, those taken
	uint64_t kexcl_samples;    // inside the kernel window (kernel.c)
} vb_node;

typedef struct vb_thread {
	struct vb_thread *next_thread; // global lock-free list
	vb_node root;
	vb_node *active;
	uint64_t lost;             // open frames not recorded because the arena ran out
	uint64_t spare;
	uint64_t rng;              // xorshift64 state for the timing schedule
	char *chunk_cur, *chunk_end;
	FunctionID unwind_fid;     // last ExceptionUnwindFunctionEnter
	ThreadID managed_id;
	int32_t os_tid;
	int32_t dead;              // thread exited; cpu_ns is final
	int64_t cpu_ns;
	uint64_t samples;
	vb_node lost_node;         // active while lost != 0: matches no function
	vb_node *lost_saved;       // the active node when the arena ran out
	vb_node **last;            // instrumentation: by function id (< VB_LAST_CAP), the node last
	                           // entered on this thread; NULL in other engines
	struct vb_tl *tl;          // tracing with a timeline: this thread's events; NULL without
} vb_thread;

// The timeline (timeline.c, VBENCH_TIMELINE=1, tracing): per thread, one
// fixed-size event per kept call, in order of entry, its duration filled in
// when the call leaves. A call shorter than vb_tl_min_ticks is folded into its
// caller at its leave (its slot, and its children's, given back); the
// process's events are capped at vb_tl_cap, reserved VB_TL_BLOCK at a time.
typedef struct {
	uint64_t ts;  // TSC at enter
	uint64_t dur; // ticks; 0: still open
	vb_fn *fn;
} vb_tl_ev;
#define VB_TL_DEPTH 4096 // open frames a thread's timeline follows; deeper ones are not kept
#define VB_TL_BLOCK 4096
#define VB_TL_NONE UINT64_MAX
typedef struct vb_tl {
	vb_tl_ev *ev;      // reserved for vb_tl_cap events, committed as touched
	uint64_t n;        // events kept (published with release stores)
	uint64_t budget;   // events this thread may keep so far
	uint64_t depth;    // open frames, kept or not
	uint64_t folded;   // calls folded into their callers
	uint64_t dropped;  // calls not kept: the cap, or deeper than VB_TL_DEPTH
	uint64_t start_tsc, end_tsc; // the thread's first hooked call; its exit (0: alive)
	int32_t os_tid;
	struct { uint64_t idx; vb_fn *fn; } stack[VB_TL_DEPTH];
} vb_tl;
// Under the sampling engines a thread's ev holds samples instead (same
// size): the tick's TSC, the stack's leaf in the thread's tree, the weight
// in intervals. Appended by the drain (or suspend-sampling's thread), one
// thread at a time, never by the signal handler; the cap is exact.
typedef struct {
	uint64_t ts;
	vb_node *leaf;
	uint64_t weight;
} vb_tl_smp;
void vb_tl_sample(vb_thread *t, uint64_t ts, vb_node *leaf, uint64_t weight);
extern int vb_tl_on;
extern uint64_t vb_tl_min_ticks, vb_tl_cap;
extern int64_t vb_tl_left; // events of the cap not yet reserved by a thread
void vb_tl_configure(int on, int64_t min_ns, int64_t cap);
vb_tl *vb_tl_new(int32_t os_tid); // a thread's, at its first hooked call (libc allowed)
int vb_tl_enter(vb_fn *fn);       // the hooks under a timeline (hot.c); 1: no tree yet
void vb_tl_enter_slow(vb_fn *fn);
void vb_tl_leave(vb_fn *fn);
void vb_tl_pop(vb_tl *l, vb_fn *fn, uint64_t now);
void vb_tl_enter_stub(void), vb_tl_leave_stub(void);
// Runtime events for the timeline: JIT compilations and exceptions thrown,
// each on the thread it ran on (GCs are in vb_gcs).
#define VB_TL_JITS 65536
#define VB_TL_EXCS 16384
typedef struct { uint64_t t0, t1; vb_fn *fn; int32_t tid; } vb_tl_jit;
typedef struct { uint64_t ts; ClassID cls; int32_t tid; int32_t caught; } vb_tl_exc;
extern vb_tl_jit vb_tl_jits[VB_TL_JITS];
extern vb_tl_exc vb_tl_excs[VB_TL_EXCS];
extern uint64_t vb_tl_njit, vb_tl_nexc;
void vb_tl_jit_started(FunctionID fid);
void vb_tl_jit_finished(FunctionID fid);
void vb_tl_exception(ObjectID obj);
void vb_tl_thread_exit(vb_thread *t);
uint64_t vb_tl_n(vb_tl *l);
struct vb_atab;
uint64_t vb_aev_n(struct vb_atab *t);

// Function ids the instrumentation engine's per-thread table covers: 512 KiB
// of arena address space per thread, committed only where touched.
#define VB_LAST_CAP 65536u

// Settings and the runtime interface (state.c; set before the engines start).
extern int vb_mode;
extern IUnknown *vb_info; // ICorProfilerInfo10
extern int64_t vb_interval_ns;
const char *vb_mode_name(int mode); // VBENCH_MODE's name for it, "" for none

// Logging (log.c): vb_log only with VBENCH_DEBUG=1 (vb_debug), vb_err always.
extern int vb_debug;
extern int vb_log_fd; // where both write: 2, or an attach's log file
void vb_log(const char *fmt, ...);
void vb_err(const char *fmt, ...);

// Clocks (clock.c). vb_clock_start sets the profile's time origin.
extern uint64_t vb_tsc_start, vb_mono_start_ns, vb_realtime_start_ns;
void vb_clock_start(void);
int vb_join_within(pthread_t t, int ms); // 0 joined, -1 still running after ms (< 0: no bound)
int64_t vb_mono_ns(void);
uint64_t vb_tsc_now(void);
int64_t vb_self_cpu_ns(void);         // the calling thread's CPU time, ns
clockid_t vb_cpu_clock(int32_t tid);  // thread tid's CPU-time clock (any thread of the process)
int64_t vb_cpu_ns_of(int32_t tid);    // thread tid's CPU time so far, ns; -1: unknown (gone)

// The hot path (hot.c, hooks.S), as the cold half sees it.
// Timing schedule: a node's first vb_exact_calls calls are all timed, then
// about one in (vb_time_mask+1)/2 (random gaps). vb_exact_calls INT64_MAX:
// every call is timed.
extern int64_t vb_exact_calls;
extern uint64_t vb_time_mask;
// Per-thread tree, initially &vb_nothread.
extern __thread vb_thread *vb_tls_thread __attribute__((tls_model("initial-exec")));
// The tree of threads that have none yet: its root has no children, so every
// hook on such a thread falls through to the C path, which creates the tree.
extern vb_thread vb_nothread;
// The hint of a node with no child yet: matches no function.
extern vb_node vb_no_child;
// The stubs CoreCLR's enter/leave/tailcall hooks call; the null engine's do nothing.
void vb_enter_stub(void), vb_leave_stub(void), vb_tailcall_stub(void), vb_null_stub(void);
int vb_enter_fast(vb_fn *fn);      // 1: the thread has no tree yet (then vb_enter_slow)
int vb_pop_to(vb_thread *t, vb_fn *fn);
void vb_lost_pop(vb_thread *t);
extern uint64_t vb_slow_enters, vb_slow_leaves, vb_mismatch_pops;
extern char *vb_arena_base;
extern uint64_t vb_arena_size, vb_arena_off;

// Arena and threads (tree.c).
int vb_arena_init(void);
vb_thread *vb_thread_new(int32_t os_tid, ThreadID managed);
vb_thread *vb_thread_attach(void); // creates this thread's tree; &vb_nothread if the arena is full
void vb_enter_slow(vb_fn *fn);     // a thread's first enter: its tree, then the enter
vb_thread *vb_threads_head(void);
vb_node *vb_node_child(vb_thread *t, vb_node *p, vb_fn *fn);
void vb_tree_thread_key_init(void);
int64_t vb_thread_cpu_ns(vb_thread *t);
uint64_t vb_arena_used(void);
int vb_arena_exhausted(void);

// The kernel window (kernel.c): between the program's marks, samples also
// count as the kernel's.
extern int vb_kernel_on, vb_kernel_marked;
void vb_kernel_add(vb_thread *t, vb_node *leaf, uint64_t w);

static inline uint64_t vb_rdtsc(void) {
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

// Names and filter (names.c).
vb_fn *vb_fn_for_function(FunctionID fid);   // resolve (once) and cache
vb_fn *vb_fn_lookup(FunctionID fid);         // cached only, NULL if unknown
int vb_class_name(ClassID cls, char *out, size_t n); // Namespace.Type; 0 on success
vb_fn *vb_fn_for_method(ModuleID mid, mdToken methoddef, IUnknown *md); // md: the module's IMetaDataImport2
uint32_t vb_fn_count(void);
vb_fn *vb_fn_at(uint32_t i);
void vb_filter_set(const char *include, const char *exclude);
int vb_filter_user(const char *assembly, const char *type_name);
int vb_fn_user_quick(FunctionID fid); // the filter's verdict, from the assembly alone when that decides
int vb_module_selectable(ModuleID mid); // some method of the module may pass the filter

// Instrumentation (instr.c).
void vb_instr_jit_started(FunctionID fid);
void vb_instr_jit_finished(void);
int vb_instr_use_precompiled(FunctionID fid);
int vb_instr_may_inline(FunctionID callee);
void vb_instr_module_unloaded(ModuleID mid);
extern uint64_t vb_instr_rewritten, vb_instr_skipped, vb_instr_refused_r2r, vb_instr_refused_inlines, vb_jit_compilations, vb_iunwinds;
extern uint64_t vb_instr_rewrite_ns, vb_instr_sig_hits, vb_instr_sig_misses;
// The counting functions the rewritten code calls (hot.c).
vb_thread *vb_ithread(void);
vb_node *vb_ienter(vb_fn *fn);
void vb_itime(vb_node *c), vb_ileave(vb_node *c, vb_fn *fn), vb_iunwind(vb_fn *fn);
uint64_t vb_timed_floor(void); // TSC ticks of a timed empty frame, C alone (timefloor.c)

// Suspend-sampling (suspend_sampling.c); the stack limits and counts both samplers share.
#define VB_MAXFRAMES (1u << 22)  // frames of all stacks of one tick (32 MiB reserved)
extern uint32_t vb_max_stack;    // frames kept per stack; deeper ones lose their middle
extern int64_t vb_stacks_elided, vb_stacks_dropped, vb_stacks_failed;
extern vb_fn vb_elided_fn;       // the marker frame standing for a stack's elided middle
extern int64_t vb_samples_taken;
extern int vb_leaf_recovery;     // interrupted leaves put back: 1, not asked for: 0, impossible: -1
int vb_suspend_sampling_start(void);
void vb_suspend_sampling_stop(void);
int vb_suspend_sampling_stop_within(int ms); // -1: still running after ms (left running)

// The sampling engine (sampling.c, its parts sampling_*.c): per-thread CPU timers, SIGPROF,
// frame-pointer walks from the signal context, resolved by a drain thread.
extern vb_fn vb_incomplete_fn; // the root of stacks whose walk stopped in managed code
// Samples with no managed frame, by the code their IP lies in.
enum { VB_NATIVE_OTHER, VB_NATIVE_JIT, VB_NATIVE_RUNTIME, VB_NATIVE_GC, VB_NATIVE_KINDS };
extern vb_fn vb_native_fns[VB_NATIVE_KINDS];
extern int64_t vb_cpu_wait_weight;
enum { VB_CPU_LEAD = 128, VB_CPU_RING = 128 }; // frames a sampling walk keeps: leaf-most in order, root-most round a ring
extern int64_t vb_cpu_signals, vb_cpu_weight, vb_cpu_full, vb_cpu_incomplete, vb_cpu_no_managed, vb_cpu_timer_fail;
int vb_sampling_start(void);
int vb_sampling_stop_within(int ms); // ms < 0: for ever; -1: still running after ms
void vb_cpu_thread_assigned(ThreadID managed, int32_t tid);
void vb_cpu_exception_thrown(void);
void vb_cpu_thread_destroyed(ThreadID managed);
int vb_cpu_register_running(void); // after an attach: the threads already running
void vb_cpu_release_signal(void);   // at a detach, once stopped: SIGPROF back as it was
void vb_sampling_reset(void);    // a later attach: the last one's threads and counts forgotten
extern char vb_cpu_lost_what[256]; // the program took SIGPROF: what it does now ("" while it is ours)
extern int64_t vb_cpu_lost_ns;     // ... seen this long after the profiler started

// Source lines of sampled leaves (lines.c, VBENCH_LINES=1): one entry per
// (leaf node, leaf IP), written by the drain thread only, its IL offset
// from the runtime's IL-to-native map (or one of VB_IL_*). A site entry is
// a call site: (callee node, return address - 1 in the caller's code), fid
// the caller's, its weight the samples through that call.
enum { VB_IL_NONE = -1, VB_IL_PROLOG = -2, VB_IL_EPILOG = -3, VB_IL_UNKNOWN = -4, VB_IL_PENDING = -5 };
#define VB_LTAB (1u << 17)
typedef struct {
	vb_node *node;     // 0: free; published last
	uintptr_t ip;
	FunctionID fid;
	uint64_t w;        // the samples' weight
	int32_t il;
	uint32_t site;     // 1: a call site entry (see above)
	FunctionID callee; // a call site's: the method called (the frame below)
} vb_lsample;
extern int vb_lines;
// Instrumentation with lines: one rewritten method's basic blocks (their
// leaders' IL offsets) and their execution counts (instr.c, il.c).
typedef struct vb_lblocks {
	struct vb_lblocks *next;
	vb_fn *fn;
	uint32_t n;
	uint32_t *offs;
	uint64_t *counts;
} vb_lblocks;
extern vb_lblocks *vb_lblocks_head;
extern vb_lsample *vb_ltab;
extern int64_t vb_lines_lost, vb_lines_unmapped, vb_lines_pending;
int vb_lines_init(void);
vb_lsample *vb_lines_note(vb_node *node, FunctionID f, uintptr_t ip, uint32_t w, int may_call, FunctionID callee); // callee 0: a leaf
void vb_lines_settle(void); // map the entries noted inside callbacks (not from one)

// The leaf the suspension hid (interrupted.c).
typedef struct {
	uintptr_t last_ip, last_sp;                  // the latest activation
	uintptr_t hij_ip, hij_ret, hij_ret_sp;       // the hijack in place (ret 0: none)
	uintptr_t first_ip, first_sp;                // the deciding first activation (ip 0: none)
	FunctionID caller_fn[2];                     // its caller, candidates (0: none)
	uintptr_t caller_sp[2];                      // and the caller's stack pointer, once returned to
	int now;                                     // first_*: of this suspension, not an earlier one
} vb_interrupt;
// How each stack's leaf was decided (logged with VBENCH_DEBUG=1).
typedef struct {
	int64_t cut, put_back, exact, parked; // by the first activation, or a GC's hijack
	int64_t unplaced, uninterrupted;      // as walked
} vb_leaf_counts;
extern vb_leaf_counts vb_leaf;
int vb_interrupts_install(void);
uint32_t vb_interrupts_open(void);
void vb_interrupts_close(void);
void vb_interrupt_read(uint32_t gen, int32_t os_tid, vb_interrupt *q);
FunctionID vb_interrupted_leaf(const vb_interrupt *q, uintptr_t leaf_ip, uintptr_t leaf_sp, int32_t caller_at, uint32_t *drop);

// A crash's profile (crash.c): libcoreclr.so's abort(), a fault CoreCLR
// hands back to the kernel, or SIGINT/SIGQUIT/SIGTERM reaching the runtime's
// handler wakes a writer thread that calls write(cause, interrupt) first
// (interrupt: a stop signal, whose profile Shutdown may still replace).
// Tracing feeds it the thread's in-flight exception.
int vb_crash_init(void (*write)(const char *cause, int interrupt));

// Attach and detach (attach.c, profiler.c): vb_start is Initialize and
// InitializeForAttach (data: the client data, 0 for Initialize).
HRESULT vb_start(IUnknown *unk, const void *data, uint32_t ndata);
HRESULT vb_initialize_for_attach(void *self, IUnknown *unk, const void *data, uint32_t ndata);
HRESULT vb_attach_complete(void *self);
HRESULT vb_detach_succeeded(void *self);
int vb_attach_stop(void);
void vb_attach_write(void);
void vb_profiler_reset(void);
void vb_threads_forget(void);
extern int64_t vb_attach_ns; // an attach's profiling time, set by Go from the client data
const char *vb_runtime_settings(IUnknown *unk); // a start-up through a diagnostic port: the runtime's VBENCH_* (0: none)
void vb_crash_thrown(ObjectID obj);
void vb_crash_caught(void);

// The allocation engines' tables (alloc.c). One table per thread: its
// distinct (type, path) sites and their frames (raw IPs, leaf first).
#define VB_ALLOC_DEPTH 64        // return addresses kept per path (leaf-most)
#define VB_ALLOC_SITES (1u << 16) // sites per thread (filled to 3/4)
#define VB_ALLOC_FRAMES (1u << 20) // stored frames per thread
#define VB_ALLOC_THREADS 1024     // threads with a table; later ones are folded
#define VB_ALLOC_FOLDS (1u << 13) // types in the shared by-type table of folded objects
typedef struct {
	ClassID cls;       // 0: free; published last (release)
	uint64_t hash;
	uint32_t off;      // first frame in the table's frames
	uint16_t n;        // frames
	uint16_t rooted;   // the walk reached the thread's first frame
	uint64_t count, bytes; // objects (allocation-sampling: samples) and their bytes
	double ecount, ebytes; // estimated objects and bytes (allocations: = count, bytes)
} vb_asite;
typedef struct vb_atab {
	struct vb_atab *next;
	int32_t tid;
	uint32_t used;     // sites
	uint32_t nframes;  // frames stored
	uint32_t nresolved; // fns filled by vb_alloc_resolve
	uintptr_t lo, hi;  // the thread's stack
	vb_asite *sites;
	uintptr_t *frames;
	vb_fn **fns;       // at the write: frames resolved (NULL: native)
	// The timeline (VBENCH_TIMELINE=1): each allocation (or sample) in
	// order, reserved for the cap at the table's making; NULL without.
	struct vb_aev *ev;
	uint64_t nev, budget, dropped;
} vb_atab;
typedef struct vb_aev {
	uint64_t ts;      // TSC
	uint64_t bytes;   // the object's (allocation-sampling: the sampled object's)
	ClassID cls;
	uint32_t site;    // in the table's sites; VB_ASITE_NONE: folded (no path)
	uint32_t pad;
} vb_aev;
#define VB_ASITE_NONE UINT32_MAX
typedef struct {
	ClassID cls;
	uint64_t count, bytes, ecount_fx, ebytes_fx; // estimates in 1/1024 units
} vb_afold;
extern vb_atab *vb_atabs;
extern vb_afold vb_afolds[VB_ALLOC_FOLDS];
extern uint64_t vb_alloc_folded, vb_alloc_fold_lost, vb_alloc_samples, vb_alloc_objects, vb_alloc_walk_short;
int vb_alloc_init(void);
void vb_alloc_note(uintptr_t bp, ClassID cls, uint64_t count, uint64_t bytes, double ecount, double ebytes, const uintptr_t *stack, uint32_t nstack);
HRESULT vb_object_allocated(void *self, ObjectID obj, ClassID cls);
void vb_alloc_resolve(void);
uint64_t vb_alloc_memory(void);
int vb_type_name(ClassID cls, char *out, size_t n);
double vb_alloc_sample_weight(uint64_t size);
// allocation-sampling (allocsample.c).
extern uint64_t vb_asample_events, vb_asample_bad;
int vb_asample_start(int major);
int vb_asample_stop(void); // a detach
HRESULT vb_asample_delivered(void *self, uintptr_t prov, uint32_t id, uint32_t version, ULONG cbmeta, const uint8_t *meta,
	ULONG cb, const uint8_t *data, const GUID *act, const GUID *rel, ThreadID thread, ULONG nframes, const uintptr_t *frames);

// Garbage collections (gc.c).
#define VB_GC_MAX 65536 // collections listed; later ones are in the totals only
typedef struct {
	int32_t generation;
	int32_t induced;
	int64_t pause_ns;
	uint64_t t0, t1; // TSC at the suspension's start and the resume's end (timeline)
	int32_t tid;     // the thread that suspended the runtime
} vb_gc;
extern vb_gc vb_gcs[VB_GC_MAX];
extern uint64_t vb_gc_count, vb_gc_induced, vb_gc_pause_ns, vb_gc_by_gen[3];
HRESULT vb_gc_suspend_started(void *self, uint32_t reason);
HRESULT vb_gc_started(void *self, int ngens, const BOOL *collected, uint32_t reason);
HRESULT vb_gc_resume_finished(void *self);

// Signals (signals.c).
void vb_signals_fix(void);
void vb_add_stop_signals(sigset_t *s);
void vb_signals_unblock_stops(void);
int vb_sigrtmin_flags(void);

// Configuration from Go, and the runtime's version (profiler.c).
void vb_set_time_sample(int n);
void vb_configure(int mode, int64_t interval_ns, const char *include, const char *exclude);
extern char vb_runtime_version[64];

// Hook microbenchmarks (bench.c, built only with -tags vbenchtest).
int64_t vb_bench_pairs(int64_t n, int kind);
int64_t vb_bench_calls(int64_t n);

#endif
