// vbench's kernel marks: callgrind client requests a workload calls around
// its kernel (benchmarks/common/Harness.cs), so metric kernel-instructions
// counts what the process executed between them. Outside valgrind each
// request is a few no-op instructions.
#include <valgrind/callgrind.h>

void vbench_kernel_begin(void) { CALLGRIND_START_INSTRUMENTATION; }
void vbench_kernel_end(void) { CALLGRIND_STOP_INSTRUMENTATION; }
