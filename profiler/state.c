// The settings and the runtime interface every engine reads, here rather
// than in profiler.c so the engines need nothing of the callbacks that call
// them. Written before the engines start (vb_configure, Initialize), read
// only after.
#include "vb.h"

int vb_mode;
IUnknown *vb_info;
int64_t vb_interval_ns = 10000000;

// vb_mode_name is mode's VBENCH_MODE name ("" for none): vb.h numbers the
// modes once, Go reads those numbers through cgo, and the test that an
// engine reaches its own mode reads this.
const char *vb_mode_name(int mode) {
	switch (mode) {
	case VB_MODE_NULL: return "null";
	case VB_MODE_TRACING: return "tracing";
	case VB_MODE_SUSPEND_SAMPLING: return "suspend-sampling";
	case VB_MODE_INSTRUMENTATION: return "instrumentation";
	case VB_MODE_SAMPLING: return "sampling";
	case VB_MODE_ALLOCATIONS: return "allocations";
	case VB_MODE_ALLOCATION_SAMPLING: return "allocation-sampling";
	}
	return "";
}
