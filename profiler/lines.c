// Source lines of sampled frames (VBENCH_LINES=1, the sampling engine).
//
// The signal handler is unchanged: it already stores the leaf's exact IP
// and every caller's return address. The drain thread, after merging a
// stack, adds the sample's weight to one entry of a table keyed by (leaf
// node, leaf IP), and to one per call site (the callee's node, the return
// address - 1: inside the call instruction), and maps each IP to an IL
// offset with the runtime's own IL-to-native map of the code version that
// holds it (GetNativeCodeStartAddresses, GetCodeInfo4, GetILToNativeMapping3),
// once per IP. Those calls may lock or trigger a GC, so inside a runtime
// callback (and at the stop) an entry is left pending and mapped at the
// drain's next pass. The IL offsets become file:line after the run, from
// the program's PDB (internal/lines): nothing here knows about sources.
//
// Only the drain thread writes the table; the profile writer reads it once
// the drain thread is stopped (or, at a crash, as it stands).
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include "vb.h"
#include "il.h"

int vb_lines;
vb_lsample *vb_ltab;
int64_t vb_lines_lost, vb_lines_unmapped, vb_lines_pending;

#define PROBE 64
#define NPENDING 4096
static uint32_t pending[NPENDING], npending;

// An (IP, function) -> IL offset cache: a hot loop's few IPs are mapped once.
#define ILC (1u << 14)
static struct { uintptr_t ip; FunctionID fid; int32_t il; } ilc[ILC];

// call_at is the IL offset of the call to callee among f's instructions
// in [lo, hi), or VB_IL_UNKNOWN. Outside debuggable code the JIT maps
// native code to IL only where the evaluation stack is empty: in a Release
// build, Main's "long w = Walk(); long t = Tally();" feeding one later
// call is a single range, whose first IL offset lies on the line before.
// So the call is found by its callee: the range's only call, else its only
// call whose token is the callee's own method definition. Anything else
// (a virtual call to an override, a call through a member reference with
// another like it in the range) is not known: no line rather than a
// wrong one.
static int32_t call_at(FunctionID f, FunctionID callee, int32_t lo, int32_t hi) {
	vb_fn *cf = vb_fn_for_function(f), *ce = callee ? vb_fn_for_function(callee) : 0;
	if (!cf) return VB_IL_UNKNOWN;
	const uint8_t *body = 0;
	ULONG size = 0;
	if (FAILED(VCALL(vb_info, INFO_GetILFunctionBody, GetILFunctionBody_t)(vb_info, cf->module_id, cf->token, &body, &size)) || !body) return VB_IL_UNKNOWN;
	vb_il m;
	const char *why = 0;
	if (!vb_il_decode(body, size, &m, &why)) return VB_IL_UNKNOWN;
	int32_t any = VB_IL_UNKNOWN, mine = VB_IL_UNKNOWN;
	int nany = 0, nmine = 0;
	for (uint32_t k = 0; k < m.ninsns; k++) {
		const vb_insn *x = &m.insns[k];
		if ((int32_t)x->off < lo || (int32_t)x->off >= hi) continue;
		if (x->op != OP_CALL && x->op != OP_CALLVIRT && x->op != OP_NEWOBJ) continue;
		any = (int32_t)x->off, nany++;
		if (ce && ce->module_id == cf->module_id && (mdToken)x->arg == ce->token) mine = (int32_t)x->off, nmine++;
	}
	vb_il_free(&m);
	if (nany == 1) return any;
	if (nmine == 1) return mine;
	return VB_IL_UNKNOWN;
}

// The map of one code version; only the drain thread calls il_at.
#define MAPCAP 16384
static COR_DEBUG_IL_TO_NATIVE_MAP map[MAPCAP];

int vb_lines_init(void) {
	void *p = mmap(0, (size_t)VB_LTAB * sizeof(vb_lsample), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) return -1;
	vb_ltab = p;
	return 0;
}

static uint32_t lhash(const vb_node *n, uintptr_t ip) {
	uint64_t h = ((uint64_t)(uintptr_t)n ^ (ip * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(h >> 40) % VB_LTAB;
}

// il_at maps ip, inside one of f's code versions, to the IL offset its
// IL-to-native map gives (or VB_IL_PROLOG/EPILOG/NONE), VB_IL_UNKNOWN when
// no version of f that the runtime lists holds ip.
// callee (a call site's: ip is its return address - 1) is the method
// called; 0 for a leaf's own IP.
static int32_t il_at(FunctionID f, uintptr_t ip, FunctionID callee) {
	uint32_t c = (uint32_t)((ip * 0x9E3779B97F4A7C15ull) >> 50) % ILC;
	if (ilc[c].ip == ip && ilc[c].fid == f) return ilc[c].il;
	uintptr_t starts[16];
	uint32_t n = 0;
	int32_t il = VB_IL_UNKNOWN;
	if (FAILED(VCALL(vb_info, INFO_GetNativeCodeStartAddresses, GetNativeCodeStartAddresses_t)(vb_info, f, 0, 16, &n, starts))) n = 0;
	for (uint32_t k = 0; k < n && k < 16 && il == VB_IL_UNKNOWN; k++) {
		COR_PRF_CODE_INFO ci[4];
		uint32_t m = 0;
		if (FAILED(VCALL(vb_info, INFO_GetCodeInfo4, GetCodeInfo4_t)(vb_info, starts[k], 4, &m, ci))) continue;
		// Native offsets run through the regions (hot, then cold) in order.
		uint64_t off = 0, at = UINT64_MAX;
		for (uint32_t j = 0; j < m && j < 4; j++) {
			if (ip >= ci[j].start && ip < ci[j].start + ci[j].size) {
				at = off + (ip - ci[j].start);
				break;
			}
			off += ci[j].size;
		}
		if (at == UINT64_MAX) continue;
		uint32_t cnt = 0;
		if (FAILED(VCALL(vb_info, INFO_GetILToNativeMapping3, GetILToNativeMapping3_t)(vb_info, starts[k], MAPCAP, &cnt, map))) {
			il = VB_IL_NONE;
			break;
		}
		if (cnt > MAPCAP) cnt = MAPCAP;

		// The entry whose native range holds the offset; a real IL offset
		// before a prolog/epilog/no-mapping marker on the same range.
		il = VB_IL_NONE;
		for (uint32_t j = 0; j < cnt; j++) {
			if (at < map[j].nativeStartOffset || at >= map[j].nativeEndOffset) continue;
			int32_t o = (int32_t)map[j].ilOffset;
			if (o >= 0) {
				il = o;
				break;
			}
			if (il == VB_IL_NONE) il = o;
		}
		if (callee) {
			// The call's own offset, inside the range's IL [il, next).
			int32_t next = INT32_MAX;
			for (uint32_t j = 0; j < cnt; j++)
				if ((int32_t)map[j].ilOffset > il && (int32_t)map[j].ilOffset < next) next = (int32_t)map[j].ilOffset;
			il = il >= 0 ? call_at(f, callee, il, next) : VB_IL_UNKNOWN;
		}
	}
	ilc[c].ip = ip, ilc[c].fid = f, ilc[c].il = il;
	return il;
}

vb_lsample *vb_lines_note(vb_node *node, FunctionID f, uintptr_t ip, uint32_t w, int may_call, FunctionID callee) {
	uint32_t site = callee != 0;
	if (!vb_ltab) return 0;
	uint32_t i = lhash(node, ip + site);
	for (int k = 0; k < PROBE; k++, i = (i + 1) % VB_LTAB) {
		vb_lsample *e = &vb_ltab[i];
		if (e->node == node && e->ip == ip && e->site == site) {
			e->w += w;
			return e;
		}
		if (e->node) continue;
		e->ip = ip, e->fid = f, e->w = w, e->site = site, e->callee = callee;
		if (may_call) {
			e->il = il_at(f, ip, callee);
		} else if (npending < NPENDING) {
			e->il = VB_IL_PENDING;
			pending[npending++] = i;
		} else {
			e->il = VB_IL_UNKNOWN;
			vb_lines_pending++;
		}
		if (e->il == VB_IL_UNKNOWN) vb_lines_unmapped++;
		__atomic_store_n(&e->node, node, __ATOMIC_RELEASE);
		return e;
	}
	if (!site) vb_lines_lost += w; // a lost call site leaves its caller's line unknown
	return 0;
}

void vb_lines_settle(void) {
	for (uint32_t k = 0; k < npending; k++) {
		vb_lsample *e = &vb_ltab[pending[k]];
		e->il = il_at(e->fid, e->ip, e->callee);
		if (e->il == VB_IL_UNKNOWN) vb_lines_unmapped++;
	}
	npending = 0;
}
