// The sampling engine's thread registry: a record per kernel thread id, in
// a fixed table the signal handler searches without a lock (find, in
// sampling.h), made and emptied by the runtime's thread callbacks.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sampling.h"

record vb_cpu_records[NRECORDS];
// The records with slots, in the order they got them (under reg; a record
// keeps its slots for good): the drain's passes walk these, not the 4096
// records, whose 600 KiB a pass would otherwise read at every wake-up.
record *vb_cpu_used[NRECORDS];
int vb_cpu_nused;
pthread_mutex_t vb_cpu_reg = PTHREAD_MUTEX_INITIALIZER; // registration vs the drain (never the handler)
int vb_cpu_running;

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

// drain_in_callback drains r from inside a runtime callback, where the
// drain makes no runtime call that may lock or trigger a GC (see frame_at).
static void drain_in_callback(record *r) {
	vb_cpu_in_callback = 1;
	vb_cpu_drain_record(r);
	vb_cpu_in_callback = 0;
}

// vb_cpu_thread_assigned: managed thread `managed` runs on kernel thread
// tid. Called by ThreadAssignedToOSThread (on the thread itself, measured
// on .NET 10; from another thread the drain learns the stack range from
// /proc/self/maps and the first samples keep only their leaf).
#ifdef VB_TEST_HOOKS
int vb_cpu_assign_pause_ms; // VBENCH_DEBUG_ASSIGN_PAUSE_MS: the race below made wide (tests)
#endif

void vb_cpu_thread_assigned(ThreadID managed, int32_t tid) {
	if (!__atomic_load_n(&vb_cpu_running, __ATOMIC_ACQUIRE) || tid <= 0) return;
#ifdef VB_TEST_HOOKS
	if (vb_cpu_assign_pause_ms > 0 && (int32_t)syscall(SYS_gettid) == tid) usleep((useconds_t)vb_cpu_assign_pause_ms * 1000);
#endif
	pthread_mutex_lock(&vb_cpu_reg);
	// Read again under reg: the stop clears the flag, then disarms every
	// record under reg. A thread that read it set, then waited for reg
	// (the drain holds it for a pass) while the stop disarmed all, armed a
	// timer after the stop, whose SIGPROF at a detach reached the
	// disposition given back: SIG_DFL ended the process
	// (TestDetachWhileThreadsStart).
	if (!__atomic_load_n(&vb_cpu_running, __ATOMIC_ACQUIRE)) goto done;
	record *r = find(tid, 1);
	if (!r) goto done;
	vb_cpu_disarm(r); // a thread with this id we were not told had ended
	if (r->managed && r->managed != managed) drain_in_callback(r);
	if (!r->slots) {
		void *p = mmap(0, NSLOTS * sizeof(slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) goto done;
		r->slots = p;
		vb_cpu_used[vb_cpu_nused++] = r;
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
	if (!vb_cpu_directed_always || !vb_cpu_direct(r)) vb_cpu_arm(r, tid); // no thread left without ticks
done:
	pthread_mutex_unlock(&vb_cpu_reg);
}

// vb_cpu_thread_destroyed: the runtime is done with managed thread id.
void vb_cpu_thread_destroyed(ThreadID managed) {
	if (!__atomic_load_n(&vb_cpu_running, __ATOMIC_ACQUIRE)) return;
	pthread_mutex_lock(&vb_cpu_reg);
	for (int i = 0; i < vb_cpu_nused; i++) {
		record *r = vb_cpu_used[i];
		if (r->tid && r->managed == managed && r->armed) {
			vb_cpu_disarm(r);
			drain_in_callback(r);
			if (r->tree) vb_thread_cpu_ns(r->tree); // its last CPU time, before the id is reused
		}
	}
	pthread_mutex_unlock(&vb_cpu_reg);
}

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
