// What the sampling engine's files share (sampling.c has the design; one
// job a file: the thread registry, the timers, the SIGPROF handler, the IP
// cache, prolog decoding, frameless recovery, the drain, the waits). Private
// to those files. What the signal handler calls is static inline here, so
// that it stays within its own translation unit.
#ifndef VB_SAMPLING_H
#define VB_SAMPLING_H

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>
#include "fpwalk.h"
#include "vb.h"

// A thread's record and its ring of slots, one walk a slot: the handler
// writes them, the drain reads them.
#define NRECORDS 4096  // threads registered at once (by kernel thread id)
#define PROBES 64
#define NSLOTS 64      // samples a thread may hold between two drains
#define LEAD VB_CPU_LEAD // leaf-most frames kept in order
#define RING VB_CPU_RING // root-most frames kept round a ring
#define NHIDDEN 8     // OSR frames' hidden return addresses per walk
#define DIRECTED_TAG 0x5642 // si_value's high half: a directed tick (a wall-clock timer's, see direct), not someone else's signal
#define MAX_WEIGHT 0xffff    // a sample's weight at most
#define WAIT_TAG 0x5643     // ... a waiting thread's one tick (see sampling_waits.c)
#define TOPWORDS 4     // words at the interrupted stack pointer (a frameless leaf's return address)
#define NUP 24         // leaf-most frames whose record's upper words are kept (see sampling_prolog.c)
#define UPWORDS 6      // words kept above each of those frame records

enum {
	WALK_ROOTED = 1,    // the chain ended at a zero frame pointer (the thread's first frame)
	WALK_BROKEN = 2,    // the chain stopped at a frame pointer outside the stack or not above the last
	WALK_OFFSTACK = 4,  // the interrupted SP is not on the thread's stack (a signal's alternate stack)
	WALK_NORANGE = 8,   // the thread's stack range is not known yet: leaf only
	WALK_WAIT = 16,     // a waiting thread's stack (see sampling_waits.c), not a tick of CPU time
	WALK_SCANNED = 32,  // RBP was no frame pointer: the walk starts at a frame record found above SP (see sampling_handler.c)
	WALK_DIRECTED = 64, // a directed tick's (see sampling_timers.c)
	WALK_KERNEL = 128,  // taken inside the kernel window (kernel.c)
};

typedef struct {
	uint32_t seen;     // frames walked (> LEAD+RING: the middle went round the ring)
	uint32_t weight;   // 1 + the timer's overruns
	uint32_t flags;    // WALK_*
	uint32_t pad;
	uintptr_t top[TOPWORDS];
	uintptr_t sp0, bp0; // the interrupted stack and frame pointers
	int64_t cpu_end;    // a wait tick's: the thread's CPU time as its walk ended (see sampling_waits.c)
	uint64_t tsc;       // with a timeline: when the tick interrupted the thread (see sampling_handler.c)
	// OSR frames (see sampling_frameless.c): walk index j of a frame whose record's next
	// frame pointer also lies higher up, and the word above that copy.
	uint32_t nhid;
	uint32_t hid_at[NHIDDEN];
	uintptr_t hid_ret[NHIDDEN];
	// up[j]: the UPWORDS words above the frame record that gave frame j's
	// return address (j < NUP): a frameless frame j's own frame, and above
	// it the return address into its caller (see sampling_prolog.c).
	uintptr_t up[NUP][UPWORDS];
	uintptr_t ip[LEAD + RING];
} slot;

enum { WAIT_NONE, WAIT_SENT, WAIT_HELD }; // a thread's wait (see sampling_waits.c): running, its stack on the way, held
#define WAIT_SITES 32 // call sites a held waiting stack's later weight is added to (lines)

typedef struct {
	int32_t tid;           // kernel thread id; 0: free
	int32_t armed;         // ticks run (directed, else the timer)
	int32_t directed;      // ticks from a wall-clock timer, weighed by the handler (see sampling_timers.c), not a CPU-clock one
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

#define MARK_INCOMPLETE ((FunctionID)-1) // resolve's marker frames
#define MARK_ELIDED ((FunctionID)-2)

// Settings, read at the start (sampling.c; the timers' in sampling_timers.c).
extern int vb_cpu_timing, vb_cpu_dump, vb_cpu_waits_off, vb_cpu_directed_off, vb_cpu_directed_always;
extern pid_t vb_cpu_self_pid; // and uid: a wait tick's sender, read once at start
extern uid_t vb_cpu_self_uid;
extern int vb_cpu_in_callback; // resolving inside a runtime callback or at the stop (see vb_cpu_frame_at)

// Counters (VBENCH_DEBUG=1 logs them at the stop; the profile warns on losses).
extern int64_t vb_cpu_rooted, vb_cpu_broken, vb_cpu_offstack, vb_cpu_norange, vb_cpu_frames, vb_cpu_unresolved, vb_cpu_osr, vb_cpu_leaf_callers;
extern int64_t vb_cpu_wait_sent, vb_cpu_wait_stacks, vb_cpu_scanned, vb_cpu_frameless_found, vb_cpu_wait_runnable;
extern int vb_cpu_ticks_timer, vb_cpu_ticks_directed, vb_cpu_ticks_back;
extern int64_t vb_cpu_directed_sent, vb_cpu_back_idle, vb_cpu_kept_runnable;
int vb_cpu_runnable(int32_t tid);

// The thread registry (sampling_threads.c): a record per kernel thread id.
extern record vb_cpu_records[NRECORDS];
extern record *vb_cpu_used[NRECORDS]; // the records with slots, in the order they got them
extern int vb_cpu_nused;
extern pthread_mutex_t vb_cpu_reg;    // registration vs the drain (never the handler)
extern int vb_cpu_running;
#ifdef VB_TEST_HOOKS
extern int vb_cpu_assign_pause_ms;
#endif

static inline record *find(int32_t tid, int claim) {
	uint32_t i = (uint32_t)tid % NRECORDS;
	for (uint32_t k = 0; k < PROBES; k++, i = (i + 1) % NRECORDS) {
		int32_t t = __atomic_load_n(&vb_cpu_records[i].tid, __ATOMIC_ACQUIRE);
		if (t == tid) return &vb_cpu_records[i];
		if (t != 0) continue;
		if (!claim) return 0;
		if (__atomic_compare_exchange_n(&vb_cpu_records[i].tid, &t, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || t == tid) return &vb_cpu_records[i];
	}
	return 0;
}


// The handler (sampling_handler.c).
extern __thread int32_t vb_cpu_my_tid __attribute__((tls_model("initial-exec")));
void vb_cpu_on_prof(int sig, siginfo_t *si, void *ucv);
void vb_cpu_handler_log(void);

// Ticks (sampling_timers.c).
extern int vb_cpu_lost;      // the program took SIGPROF: no more ticks (see sampling_drain.c check_handler)
extern int vb_cpu_ndirected; // threads with directed ticks
extern int64_t vb_cpu_tick_reads;
void vb_cpu_arm(record *r, int32_t tid);
int vb_cpu_direct(record *r);
void vb_cpu_disarm(record *r);
void vb_cpu_check_directed(record *r, int64_t now);
int vb_cpu_send_tick(int32_t tid, int tag, uint32_t weight);

// The IP cache (sampling_ipcache.c): IP -> FunctionID, 0: not managed code.
#define CACHE (1u << 16)
typedef struct { uintptr_t ip; FunctionID fid; } vb_cpu_ipent;
extern vb_cpu_ipent vb_cpu_ipcache[CACHE];
extern uint32_t vb_cpu_cached;
extern int64_t vb_cpu_lookups, vb_cpu_hits, vb_cpu_gffip_ns;
FunctionID vb_cpu_function_miss(uintptr_t ip, uint32_t i);

// ip_hash is the top bits of ip's Fibonacci hash: a cache's slot for it.
static inline uint32_t ip_hash(uintptr_t ip, int bits) { return (uint32_t)((ip * 0x9E3779B97F4A7C15ull) >> (64 - bits)); }

// function_at is the method ip lies in (0: none), a hit from the cache.
static inline FunctionID function_at(uintptr_t ip) {
	if (!ip) return 0;
	uint32_t i = ip_hash(ip, 16) % CACHE;
	vb_cpu_lookups++;
	if (vb_cpu_ipcache[i].ip == ip) {
		vb_cpu_hits++;
		return vb_cpu_ipcache[i].fid;
	}
	return vb_cpu_function_miss(ip, i);
}

// Prolog decoding (sampling_prolog.c): IP -> its frame's size.
#define FCACHE (1u << 14)
typedef struct { uintptr_t ip; int32_t frame; } vb_cpu_fent;
extern vb_cpu_fent vb_cpu_fcache[FCACHE];
extern int64_t vb_cpu_frame_at_calls;
int32_t vb_cpu_frame_at(FunctionID f, uintptr_t ip);
int vb_cpu_after_call(uintptr_t ret);

// Frameless recovery (sampling_frameless.c): a slot into methods.
// The IP of the slot's walk frame j (0: the leaf): the first LEAD in order,
// the rest round the ring (only the last RING of a deeper walk remain).
static inline uintptr_t frame_ip(const slot *s, uint32_t j) { return s->ip[j < LEAD ? j : LEAD + (j - LEAD) % RING]; }
uint32_t vb_cpu_resolve(const slot *s, FunctionID *out, uintptr_t *rets, int *rooted);

// The drain (sampling_drain.c) and the waits (sampling_waits.c).
void vb_cpu_drain_record(record *r);
void vb_cpu_drain_all(void);
void vb_cpu_caches_clear(void);
int vb_cpu_drain_start(void);
int vb_cpu_drain_stop_within(int ms);
void vb_cpu_drain_log(void);
void vb_cpu_waits(void);

#endif
