// The sampling engine's drain thread: every DRAIN_NS it empties the
// threads' rings, resolves each walk into methods and merges the stacks
// into the threads' sampling trees.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "sampling.h"

static pthread_t drainer;
static int stop;
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

// vb_cpu_caches_clear empties the drain's caches (IPs, frames, records).
void vb_cpu_caches_clear(void) {
	memset(vb_cpu_ipcache, 0, sizeof vb_cpu_ipcache);
	memset(vb_cpu_fcache, 0, sizeof vb_cpu_fcache);
	memset(fncache, 0, sizeof fncache);
	vb_cpu_cached = 0;
}

static vb_node *merge(vb_thread *t, vb_node *p, FunctionID fid, uint32_t w) {
	vb_fn *f = fid == MARK_INCOMPLETE ? &vb_incomplete_fn : fid == MARK_ELIDED ? &vb_elided_fn : fn_of(fid);
	if (!f) return p;
	vb_node *c = vb_node_child(t, p, f);
	if (c) c->incl_samples += w;
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
	if (vb_cpu_lost || sigaction(SIGPROF, 0, &a) != 0) return;
	void *h = (a.sa_flags & SA_SIGINFO) ? (void *)a.sa_sigaction : (void *)a.sa_handler;
	if (h == (void *)vb_cpu_on_prof) return;
	vb_cpu_lost = 1;
	for (int i = 0; i < vb_cpu_nused; i++) vb_cpu_disarm(vb_cpu_used[i]);
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

static FunctionID resolved[LEAD + RING + NUP + NHIDDEN + 2];
static uintptr_t rets[LEAD + RING + NUP + NHIDDEN + 2];
static vb_node *nodes[LEAD + RING + NUP + NHIDDEN + 2];

static int64_t drain_resolve_ns; // with VBENCH_CPU_TIMING=1: of draining, resolving IPs
static int64_t drain_records_ns, drain_lines_ns, drain_waits_ns; // ... the rings (resolving, merging, lines), of them lines, the waits' checks
static int64_t drain_directed_ns; // ... directing threads and checking the directed ones (see check_directed)
static int64_t drain_cpu_ns; // the drain thread's CPU time, read as it ends (the debug log says it)
static int64_t drain_merge_ns;              // with VBENCH_CPU_TIMING=1: of it, draining (drain_all)
static int64_t drain_wakes, drain_sleep_ns; // the loop's wake-ups; with VBENCH_CPU_TIMING=1 CPU time in its sleep's system call

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
			vb_lsample *e = resolved[i - 1] < MARK_ELIDED ? vb_lines_note(below, resolved[i], rets[i] - 1, w, !vb_cpu_in_callback, resolved[i - 1]) : 0;
			if (e && held && nheld < WAIT_SITES) held[nheld++] = e;
		}
		below = nd;
	}
	return nheld;
}

void vb_cpu_drain_record(record *r) {
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
		int64_t r0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
		uint32_t n = vb_cpu_resolve(s, resolved, rets, &rooted);
		if (vb_cpu_timing) drain_resolve_ns += vb_self_cpu_ns() - r0;
		if (vb_cpu_dump > 0 && (waiting || (n > 0 && (vb_cpu_signals % 50) == 0))) {
			vb_cpu_dump--;
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
			if (vb_tl_on) vb_tl_sample(th, s->tsc, c, w);
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
		if (vb_tl_on) vb_tl_sample(th, s->tsc, p, w);
		uint32_t nsites = 0;
		if (vb_lines && p && p != &th->root) {
			int64_t l0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
			nsites = note_sites(n, w, waiting ? r->wait_sites : 0);
			if (vb_cpu_timing) drain_lines_ns += vb_self_cpu_ns() - l0;
		}
		if (s->flags & WALK_KERNEL) vb_kernel_add(th, p, w);
		vb_lsample *line = 0;
		if (vb_lines && p && p != &th->root) {
			// The leaf's own IP when the leaf frame is the interrupted one
			// (not a caller standing in for an unresolved stub).
			uintptr_t ip = frame_ip(s, 0);
			int64_t l0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
			if (function_at(ip) == resolved[0]) line = vb_lines_note(p, resolved[0], ip, w, !vb_cpu_in_callback, 0);
			if (vb_cpu_timing) drain_lines_ns += vb_self_cpu_ns() - l0;
		}
		if (waiting && r->wait == WAIT_HELD && p != &th->root) r->wait_leaf = p, r->wait_line = line, r->nwait_sites = nsites;
	}
	__atomic_store_n(&r->tail, h, __ATOMIC_RELEASE);
	vb_cpu_full += (int64_t)__atomic_exchange_n(&r->full, 0, __ATOMIC_RELAXED);
}

void vb_cpu_drain_all(void) {
	pthread_mutex_lock(&vb_cpu_reg);
	check_handler();
	if (vb_cpu_cached > CACHE / 2) vb_cpu_caches_clear();
	int64_t now = __atomic_load_n(&vb_cpu_ndirected, __ATOMIC_RELAXED) > 0 ? vb_mono_ns() : 0;
	for (int i = 0; i < vb_cpu_nused; i++) {
		record *r = vb_cpu_used[i];
		if (r->tid && r->slots && r->head != r->tail) {
			int64_t d0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
			vb_cpu_drain_record(r);
			if (vb_cpu_timing) drain_records_ns += vb_self_cpu_ns() - d0;
		}
		if (r->directed || (r->busy && r->armed)) {
			int64_t c0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
			if (r->directed && now) vb_cpu_check_directed(r, now);
			if (r->busy && r->armed) vb_cpu_direct(r);
			if (vb_cpu_timing) drain_directed_ns += vb_self_cpu_ns() - c0;
		}
		r->busy = 0;
	}
	int64_t w0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
	vb_cpu_waits();
	if (vb_cpu_timing) drain_waits_ns += vb_self_cpu_ns() - w0;
	if (vb_lines && !vb_cpu_in_callback) {
		int64_t l0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
		vb_lines_settle();
		if (vb_cpu_timing) drain_lines_ns += vb_self_cpu_ns() - l0;
	}
	vb_samples_taken++;
	pthread_mutex_unlock(&vb_cpu_reg);
}

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
		int64_t z0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0);
		drain_wakes++;
		int64_t t0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
		if (vb_cpu_timing) drain_sleep_ns += t0 - z0;
		vb_cpu_drain_all();
		if (vb_cpu_timing) drain_merge_ns += vb_self_cpu_ns() - t0;
	}
	drain_cpu_ns = vb_self_cpu_ns();
	return 0;
}

// vb_cpu_drain_start starts the drain thread, every signal blocked in it; 0: started.
int vb_cpu_drain_start(void) {
	stop = 0; // a later attach starts it again
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&drainer, 0, drain_loop, 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	return rc != 0 ? -1 : 0;
}

// vb_cpu_drain_stop_within stops the drain thread, waiting at most ms (< 0:
// for ever); -1: it still runs.
int vb_cpu_drain_stop_within(int ms) {
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return vb_join_within(drainer, ms) != 0 ? -1 : 0;
}

// vb_cpu_drain_log logs the drain thread's CPU time and, with
// VBENCH_CPU_TIMING=1, its split.
void vb_cpu_drain_log(void) {
	vb_log("cpu sampler: the drain thread used %.1f ms of CPU over %.1f ms", (double)drain_cpu_ns / 1e6, (double)(vb_mono_ns() - (int64_t)vb_mono_start_ns) / 1e6);
	if (vb_cpu_timing) vb_log("cpu sampler: of it, draining %.1f ms (resolving IPs %.1f ms; %ld GetFunctionFromIP calls)", (double)drain_merge_ns / 1e6, (double)drain_resolve_ns / 1e6, (long)(vb_cpu_lookups - vb_cpu_hits));
	if (vb_cpu_timing) {
		// What one timing read costs, to subtract: the split's parts are each
		// bracketed by two.
		int64_t c0 = vb_self_cpu_ns();
		for (int i = 0; i < 1000; i++) vb_self_cpu_ns();
		double read_ns = (double)(vb_self_cpu_ns() - c0) / 1001;
		vb_log("cpu sampler: split (CPU ms): %ld wake-ups, sleeping's system call %.2f; ticks %.2f (directing, and checking the directed: %ld clock reads, 0 sends: sending 0.00); rings %.2f (resolving %.2f: GetFunctionFromIP %.2f in %ld calls; lines %.2f; code lookups for frameless callers %ld), waits' checks %.2f; a timing read %.0f ns",
			(long)drain_wakes, (double)drain_sleep_ns / 1e6, (double)drain_directed_ns / 1e6, (long)vb_cpu_tick_reads,
			(double)drain_records_ns / 1e6, (double)drain_resolve_ns / 1e6, (double)vb_cpu_gffip_ns / 1e6, (long)(vb_cpu_lookups - vb_cpu_hits), (double)drain_lines_ns / 1e6, (long)vb_cpu_frame_at_calls, (double)drain_waits_ns / 1e6, read_ns);
	}
}
