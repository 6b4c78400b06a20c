// The frame-pointer walk (the RBP chain) that the sampling engine's signal
// handler (sampling_handler.c) and the allocation engines' callback
// (alloc.c) share: a frame's return address is at [rbp+8], the next
// frame's record at [rbp], which must lie higher on the same stack. Both
// callers are hot paths: static inline, no call, no allocation, no lock,
// and every read checked against the thread's stack first.
#ifndef VB_FPWALK_H
#define VB_FPWALK_H

#include <stdint.h>

// vb_on_stack: p and the word after it lie in [lo, hi), aligned (no p + 16,
// which wraps for p near the top of the address space: a scanned word of
// -8 passed it).
static inline int vb_on_stack(uintptr_t p, uintptr_t lo, uintptr_t hi) { return p >= lo && p < hi && hi - p >= 16 && !(p & 7); }

typedef struct {
	uintptr_t lo, hi;   // the thread's stack
	uintptr_t floor;    // the next record lies at or above it
	uintptr_t bp;       // the next record (0: none, the thread's first frame)
	uintptr_t rec, ret; // the frame vb_fp_next walked: its record, its return address
} vb_fpwalk;

enum { VB_FP_FRAME, VB_FP_ROOTED, VB_FP_BROKEN };

// vb_fp_next walks one frame: VB_FP_FRAME (w->rec and w->ret are that
// frame's, w->bp the next record), VB_FP_ROOTED (a zero frame pointer or
// return address: the thread's first frame), or VB_FP_BROKEN (a frame
// pointer off the stack, or below the last record: no frame pointer).
static inline int vb_fp_next(vb_fpwalk *w) {
	uintptr_t bp = w->bp;
	if (bp == 0) return VB_FP_ROOTED;
	if (bp < w->floor || !vb_on_stack(bp, w->lo, w->hi)) return VB_FP_BROKEN;
	uintptr_t next = ((uintptr_t *)bp)[0], ret = ((uintptr_t *)bp)[1];
	if (ret == 0) return VB_FP_ROOTED;
	w->rec = bp, w->ret = ret, w->floor = bp + 16, w->bp = next;
	return VB_FP_FRAME;
}

// An OSR method (a Tier0 loop's optimized code, entered mid-method) keeps
// its Tier0 frame below its own: its frame record links straight to the
// Tier0 frame's caller's record, and its return address is a stale word of
// the Tier0 frame, a return into the same method. The Tier0 frame's own
// record, a copy of the link, lies above, beyond the Tier0 locals,
// followed by the real return address. vb_fp_osr_caller looks for it
// within VB_FP_OSR_SCAN words above the record vb_fp_next just walked;
// 1: found, its return address in *ret.
#define VB_FP_OSR_SCAN 512
static inline int vb_fp_osr_caller(const vb_fpwalk *w, uintptr_t *ret) {
	uintptr_t next = w->bp;
	if (next <= w->rec + 16 || next > w->hi - 16) return 0;
	const uintptr_t *p = (const uintptr_t *)(w->rec + 16), *end = (const uintptr_t *)next;
	if (end - p > VB_FP_OSR_SCAN) end = p + VB_FP_OSR_SCAN;
	for (; p < end; p++)
		if (*p == next) {
			*ret = p[1];
			return 1;
		}
	return 0;
}

#endif
