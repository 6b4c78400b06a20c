// The allocation-sampling engine (VBENCH_MODE=allocation-sampling): the
// runtime's randomized allocation sampling (.NET 10: the AllocationSampled
// event of the Microsoft-Windows-DotNETRuntime provider, keyword
// 0x80000000000, about one event per 100 KB allocated on a thread),
// received in-process. Initialize starts an EventPipe session
// (ICorProfilerInfo12::EventPipeStartSession) for that keyword alone; the
// runtime then hands each event to ICorProfilerCallback10::
// EventPipeEventDelivered, synchronously, on the thread that wrote it: for
// AllocationSampled, the allocating thread, inside the allocation. The
// callback parses the payload (type, object size, sampled byte offset),
// takes the stack the runtime walked for the event (else walks the frame
// pointers itself, as the allocations engine does) and adds the sample,
// upscaled (vb_alloc_sample_weight), to the thread's table (alloc.c).
//
// A runtime without the event (before .NET 10) is refused at Initialize,
// with a one-line reason: the program then runs unprofiled. A session that
// started but delivered no event is said in the profile's warnings.
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include "vb.h"

#define EVENT_ALLOCATION_SAMPLED 303
#define KEYWORD_ALLOCATION_SAMPLING 0x80000000000ull

uint64_t vb_asample_events, vb_asample_bad;
static uint64_t session;

static const WCHAR provider[] = {'M','i','c','r','o','s','o','f','t','-','W','i','n','d','o','w','s','-',
	'D','o','t','N','E','T','R','u','n','t','i','m','e',0};

// vb_asample_start starts the session; on failure it says why (one line,
// "vbench-profiler: ...") and returns -1.
int vb_asample_start(int major) {
	if (major < 10) {
		vb_err("allocation-sampling needs the runtime's AllocationSampled event (.NET 10 or later); this runtime is %s; running unprofiled", vb_runtime_version);
		return -1;
	}
	void *info12 = 0;
	HRESULT hr = VCALL(vb_info, UNK_QueryInterface, QI_t)(vb_info, &IID_ICorProfilerInfo12_, &info12);
	if (FAILED(hr) || !info12) {
		vb_err("allocation-sampling needs ICorProfilerInfo12 (EventPipe sessions; hr=0x%08x); running unprofiled", (unsigned)hr);
		return -1;
	}
	COR_PRF_EVENTPIPE_PROVIDER_CONFIG cfg = {provider, KEYWORD_ALLOCATION_SAMPLING, 4 /* informational */, 0};
	hr = VCALL(info12, INFO_EventPipeStartSession, EventPipeStartSession_t)(info12, 1, &cfg, 0, &session);
	VCALL(info12, UNK_Release, Release_t)(info12);
	if (FAILED(hr)) {
		vb_err("allocation-sampling: EventPipeStartSession for the runtime's AllocationSampled event failed (hr=0x%08x); running unprofiled", (unsigned)hr);
		return -1;
	}
	vb_log("allocation-sampling: EventPipe session %lu started", (unsigned long)session);
	return 0;
}

static uint64_t u64(const uint8_t *p) {
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

// EventPipeEventDelivered. AllocationSampled's payload: AllocationKind
// (u32), ClrInstanceID (u16), TypeID (pointer), TypeName (UTF-16, NUL
// ended), then (HeapIndex, u32, in some versions) Address (pointer),
// ObjectSize (u64), SampledByteOffset (u64): the last three are read from
// the end, so either layout parses.
HRESULT vb_asample_delivered(void *self, uintptr_t prov, uint32_t id, uint32_t version, ULONG cbmeta, const uint8_t *meta,
	ULONG cb, const uint8_t *data, const GUID *act, const GUID *rel, ThreadID thread, ULONG nframes, const uintptr_t *frames) {
	(void)self, (void)prov, (void)version, (void)cbmeta, (void)meta, (void)act, (void)rel, (void)thread;
	if (id != EVENT_ALLOCATION_SAMPLED) return S_OK;
	if (cb < 4 + 2 + 8 + 2 + 8 + 8 + 8) {
		__atomic_fetch_add(&vb_asample_bad, 1, __ATOMIC_RELAXED);
		return S_OK;
	}
	ClassID cls = (ClassID)u64(data + 6);
	uint64_t size = u64(data + cb - 16);
	uint64_t offset = u64(data + cb - 8);
	if (!cls || offset >= size) {
		__atomic_fetch_add(&vb_asample_bad, 1, __ATOMIC_RELAXED);
		return S_OK;
	}
	__atomic_fetch_add(&vb_asample_events, 1, __ATOMIC_RELAXED);
	double w = vb_alloc_sample_weight(size);
	vb_alloc_note((uintptr_t)__builtin_frame_address(0), cls, 1, size, w, w * (double)size, frames, nframes);
	return S_OK;
}

// vb_asample_stop ends the session (a detach: no event may arrive once the
// profile is built). 0: stopped, or none ran.
int vb_asample_stop(void) {
	if (!session) return 0;
	void *info12 = 0;
	HRESULT hr = VCALL(vb_info, UNK_QueryInterface, QI_t)(vb_info, &IID_ICorProfilerInfo12_, &info12);
	if (FAILED(hr) || !info12) return -1;
	hr = VCALL(info12, INFO_EventPipeStopSession, EventPipeStopSession_t)(info12, session);
	VCALL(info12, UNK_Release, Release_t)(info12);
	if (FAILED(hr)) {
		vb_err("allocation-sampling: EventPipeStopSession failed (hr=0x%08x)", (unsigned)hr);
		return -1;
	}
	vb_log("allocation-sampling: EventPipe session %lu stopped", (unsigned long)session);
	session = 0;
	return 0;
}
