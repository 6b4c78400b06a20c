// The garbage collections of a profile (the allocation engines): each
// collection's generation, whether it was induced (GC.Collect), and its
// pause, the runtime's suspension around it. GarbageCollectionStarted
// (COR_PRF_HIGH_BASIC_GC: without MovedReferences and the other heavy GC
// callbacks) opens a record; the pause is the suspension window it falls
// in, from RuntimeSuspendStarted (for a GC) to RuntimeResumeFinished
// (COR_PRF_MONITOR_SUSPENDS). A background GC's concurrent phase is not a
// pause: only its suspension is counted.
//
// The callbacks run on the thread doing the GC with the runtime suspended
// (one at a time); the writer reads the records while the process may still
// run, so a record's fields are published before the count.
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "vb.h"

vb_gc vb_gcs[VB_GC_MAX];
uint64_t vb_gc_count, vb_gc_induced, vb_gc_pause_ns, vb_gc_by_gen[3];
static int64_t suspend_start; // mono ns, 0: no suspension for a GC open
static int64_t open_gc = -1;   // the record the open suspension's pause goes to (-1: none kept)
static int gc_open;            // a GC started in the open suspension
static uint64_t suspend_tsc;   // the timeline's: when and on which thread it started
static int32_t suspend_tid;

HRESULT vb_gc_suspend_started(void *self, uint32_t reason) {
	(void)self;
	// COR_PRF_SUSPEND_FOR_GC (1), COR_PRF_SUSPEND_FOR_GC_PREP (7).
	if (reason == 1 || reason == 7) {
		suspend_start = vb_mono_ns();
		suspend_tsc = vb_rdtsc();
		suspend_tid = (int32_t)syscall(SYS_gettid);
	}
	return S_OK;
}

HRESULT vb_gc_started(void *self, int ngens, const BOOL *collected, uint32_t reason) {
	(void)self;
	int gen = 0;
	for (int g = 0; g < ngens && g < 3; g++)
		if (collected[g]) gen = g;
	uint64_t i = vb_gc_count;
	if (i < VB_GC_MAX) {
		vb_gcs[i].generation = gen;
		vb_gcs[i].induced = reason == 1; // COR_PRF_GC_INDUCED
		vb_gcs[i].pause_ns = 0;
		vb_gcs[i].t0 = suspend_tsc;
		vb_gcs[i].t1 = 0;
		vb_gcs[i].tid = suspend_tid;
		open_gc = (int64_t)i;
	} else {
		open_gc = -1;
	}
	gc_open = 1;
	vb_gc_by_gen[gen]++;
	if (reason == 1) vb_gc_induced++;
	__atomic_store_n(&vb_gc_count, i + 1, __ATOMIC_RELEASE);
	return S_OK;
}

HRESULT vb_gc_resume_finished(void *self) {
	(void)self;
	if (!suspend_start) return S_OK;
	int64_t d = vb_mono_ns() - suspend_start;
	suspend_start = 0;
	if (d < 0) d = 0;
	// A suspension with no GC started in it (a GC that decided not to run)
	// is nobody's pause.
	if (gc_open) vb_gc_pause_ns += (uint64_t)d;
	if (open_gc >= 0) {
		vb_gcs[open_gc].t1 = vb_rdtsc();
		__atomic_store_n(&vb_gcs[open_gc].pause_ns, d, __ATOMIC_RELEASE);
	}
	open_gc = -1;
	gc_open = 0;
	return S_OK;
}
