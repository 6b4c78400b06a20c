// The sampling engine's walks into methods, with the frames the chain
// hides: a frameless leaf's caller, a frameless method's caller in the
// middle of the stack, an OSR method's Tier0 frame (see resolve).
#include "sampling.h"

int64_t vb_cpu_frameless_found;

// hidden_caller is the method frame j's frameless method f hides, or 0:
// the return address into it lies above f's frame among slot.up[j].
static FunctionID hidden_caller(const slot *s, uint32_t j, FunctionID f, uintptr_t ret, uintptr_t *at) {
	if (j == 0 || j >= NUP) return 0;
	int32_t frame = vb_cpu_frame_at(f, ret - 1);
	if (frame < 0 || frame / 8 >= UPWORDS) return 0;
	uintptr_t w = s->up[j][frame / 8];
	if (!w || w == ret) return 0;
	FunctionID c = function_at(w - 1); // first: only managed code's bytes are read
	if (!c || c == f || !vb_cpu_after_call(w)) return 0;
	vb_cpu_frameless_found++;
	*at = w; // the return address into c: its call site
	return c;
}

// resolve turns a slot into FunctionIDs, leaf first, into out (unresolved
// frames dropped, MARK_ELIDED where a deep walk lost its middle); it returns
// how many, and whether the walk is rooted: its root-most frame is native
// code (every managed thread starts there), so no frame is missing above
// the managed ones. A walk whose last frame is managed stopped early (a
// broken chain, or only the leaf was taken). Return addresses are resolved
// at ip-1: a call that ends a method returns to the next one's first byte.
// rets[i] is the return address into out[i]'s code where the walk gave one
// (its call site), 0 where it is not known (the leaf, a marker).
uint32_t vb_cpu_resolve(const slot *s, FunctionID *out, uintptr_t *rets, int *rooted) {
	uint32_t n = 0, seen = s->seen;
	int last_managed = 0;
	// The IP cache's entries for every frame asked for at once: the drain
	// wakes to caches the sampled threads have since filled with their own
	// data, and one miss after another, a frame at a time, was most of
	// resolving's ~300 ns a frame (a hit is one load and a compare).
	for (uint32_t j = 0; j < seen; j++) {
		if (j == LEAD && seen > LEAD + RING) j = seen - RING;
		uintptr_t ip = frame_ip(s, j);
		__builtin_prefetch(&vb_cpu_ipcache[ip_hash(j == 0 ? ip : ip - 1, 16) % CACHE]);
		if (j > 0 && j < NUP) __builtin_prefetch(&vb_cpu_fcache[ip_hash(ip - 1, 14) % FCACHE]); // hidden_caller's frame_at
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
