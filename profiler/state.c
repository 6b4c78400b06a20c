// The settings and the runtime interface every engine reads, here rather
// than in profiler.c so the engines need nothing of the callbacks that call
// them. Written before the engines start (vb_configure, Initialize), read
// only after.
#include "vb.h"

int vb_mode;
IUnknown *vb_info;
int64_t vb_interval_ns = 10000000;
