// The sampling engine's IP cache: each IP the drain resolves, asked of the
// runtime (GetFunctionFromIP) once; its hits are function_at (sampling.h).
#include "sampling.h"

// An IP -> FunctionID cache (0: not managed code). Code is not freed under
// us but for collectible assemblies, whose IPs could then name a later
// method; the cache is cleared at each drain's start when it is half full.
vb_cpu_ipent vb_cpu_ipcache[CACHE];
uint32_t vb_cpu_cached;
int64_t vb_cpu_lookups, vb_cpu_hits;
int64_t vb_cpu_gffip_ns; // with VBENCH_CPU_TIMING=1: CPU time in GetFunctionFromIP


// vb_cpu_function_miss asks the runtime for ip, cache slot i.
FunctionID vb_cpu_function_miss(uintptr_t ip, uint32_t i) {
	FunctionID f = 0;
	int64_t t0 = vb_cpu_timing ? vb_self_cpu_ns() : 0;
	if (FAILED(VCALL(vb_info, INFO_GetFunctionFromIP, GetFunctionFromIP_t)(vb_info, (const uint8_t *)ip, &f))) f = 0;
	if (vb_cpu_timing) vb_cpu_gffip_ns += vb_self_cpu_ns() - t0;
	if (!vb_cpu_ipcache[i].ip) vb_cpu_cached++;
	vb_cpu_ipcache[i].ip = ip;
	vb_cpu_ipcache[i].fid = f;
	return f;
}
