// The instrumentation engine's cold half: deciding which methods to rewrite,
// reading their IL and metadata, handing the rewritten body to the runtime,
// and keeping the JIT from inlining a body it read before we rewrote it.
// Everything here runs in JIT callbacks (JITCompilationStarted, JITInlining,
// JITCachedFunctionSearchStarted), never on the hot path; the counting
// functions the rewritten code calls are in hot.c.
//
// Why JITCompilationStarted + SetILFunctionBody (and not ReJIT): the
// callback comes synchronously before every compilation of a method, before
// the runtime reads its IL, so the first compiled body already counts and
// every later one (tier-1, OSR, other generic instantiations) compiles the
// same rewritten IL: counts are exact from the first call. ReJIT would
// replace code that may already have run and needs requests per method.
// Precompiled (ReadyToRun) code of a selected method is refused in
// JITCachedFunctionSearchStarted, one method at a time, so it is JIT-compiled
// and rewritten too, while every other method keeps its precompiled code
// (the enter/leave hooks make the runtime refuse every ReadyToRun image).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vb.h"
#include "il.h"

vb_thread *vb_ithread(void);
vb_node *vb_ienter(vb_fn *fn);
void vb_itime(vb_node *c), vb_ileave(vb_node *c, vb_fn *fn), vb_iunwind(vb_fn *fn);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

// Rewrites are numbered; a thread remembers the number current when its
// outermost JIT compilation started. The JIT reads a callee's IL before it
// asks JITInlining, so a callee rewritten after the compilation started may
// have been read in its old form: that inline is refused.
static uint32_t epoch;
static __thread uint32_t jit_depth __attribute__((tls_model("initial-exec")));
static __thread uint32_t jit_epoch __attribute__((tls_model("initial-exec")));

// Statistics for VBENCH_DEBUG.
uint64_t vb_instr_rewritten, vb_instr_skipped, vb_instr_refused_r2r, vb_instr_refused_inlines, vb_jit_compilations;

typedef HRESULT (*GetFunctionInfo_t)(void *, FunctionID, ClassID *, ModuleID *, mdToken *);
typedef HRESULT (*GetModuleMetaData_t)(void *, ModuleID, uint32_t, const GUID *, IUnknown **);
typedef HRESULT (*GetILFunctionBody_t)(void *, ModuleID, mdToken, const uint8_t **, ULONG *);
typedef HRESULT (*GetILFunctionBodyAllocator_t)(void *, ModuleID, IUnknown **);
typedef HRESULT (*SetILFunctionBody_t)(void *, ModuleID, mdToken, const uint8_t *);
typedef void *(*Alloc_t)(void *, ULONG);
typedef ULONG (*Release_t)(void *);
typedef HRESULT (*GetMethodProps_t)(void *, mdToken, mdToken *, WCHAR *, ULONG, ULONG *, uint32_t *, const uint8_t **, ULONG *, ULONG *, uint32_t *);
typedef HRESULT (*GetSigFromToken_t)(void *, mdToken, const uint8_t **, ULONG *);
typedef HRESULT (*EnumTypeRefs_t)(void *, uintptr_t *, mdToken *, ULONG, ULONG *);
typedef void (*CloseEnum_t)(void *, uintptr_t);
typedef HRESULT (*GetTypeRefProps_t)(void *, mdToken, mdToken *, WCHAR *, ULONG, ULONG *);
typedef HRESULT (*FindTypeDefByName_t)(void *, const WCHAR *, mdToken, mdToken *);
typedef HRESULT (*DefineTypeRefByName_t)(void *, mdToken, const WCHAR *, mdToken *);
typedef HRESULT (*GetTokenFromSig_t)(void *, const uint8_t *, ULONG, mdToken *);
typedef HRESULT (*QI_t)(void *, const GUID *, void **);
typedef HRESULT (*FindMethod_t)(void *, mdToken, const WCHAR *, const uint8_t *, ULONG, mdToken *);
typedef HRESULT (*GetMemberRefProps_t)(void *, mdToken, mdToken *, WCHAR *, ULONG, ULONG *, const uint8_t **, ULONG *);
typedef HRESULT (*GetMethodSpecProps_t)(void *, mdToken, mdToken *, const uint8_t **, ULONG *);
typedef HRESULT (*GetTypeSpecFromToken_t)(void *, mdToken, const uint8_t **, ULONG *);


const GUID IID_IMetaDataEmit_ = {0xba3fee4c, 0xecb9, 0x4e41, {0x83, 0xb7, 0x18, 0x3f, 0xa4, 0x1c, 0xd8, 0x59}};

static void release(void *p) {
	if (p) VCALL(p, 2, Release_t)(p);
}

// ---- per-module state: the calli signature tokens, made once per module.
typedef struct modstate {
	ModuleID mid;
	mdToken sig_p0, sig_p1, sig_v1, sig_v2;
	struct modstate *next;
} modstate;
static modstate *mods;

static int wstr_eq(const WCHAR *w, ULONG n, const char *s) {
	ULONG i = 0;
	for (; i < n && w[i] && s[i]; i++)
		if (w[i] != (WCHAR)(unsigned char)s[i]) return 0;
	return (i == n || !w[i]) && !s[i];
}

static void wstr(const char *s, WCHAR *w) {
	while ((*w++ = (WCHAR)(unsigned char)*s++)) {}
}

// A TypeDefOrRef token in a signature's compressed encoding.
static int sig_token(mdToken tk, uint8_t *out) {
	uint32_t tag = (tk >> 24) == 0x02 ? 0 : (tk >> 24) == 0x01 ? 1 : 2;
	return sig_compress((tk & 0x00FFFFFF) << 2 | tag, out);
}

// corlib_scope finds this module's reference to its core library: the
// resolution scope of a TypeRef to one of the types every module's base
// types come from. In the core library itself there is none (0).
static mdToken corlib_scope(IUnknown *imp) {
	static const char *const core[] = {"System.Object", "System.ValueType", "System.Enum", "System.MulticastDelegate", "System.Attribute", "System.Exception", 0};
	uintptr_t e = 0;
	mdToken trs[64], scope = 0;
	ULONG n = 0;
	while (!scope && VCALL(imp, MD_EnumTypeRefs, EnumTypeRefs_t)(imp, &e, trs, 64, &n) == S_OK && n > 0) {
		for (ULONG i = 0; i < n && !scope; i++) {
			WCHAR name[64];
			ULONG l = 0;
			mdToken sc = 0;
			if (VCALL(imp, MD_GetTypeRefProps, GetTypeRefProps_t)(imp, trs[i], &sc, name, 64, &l) != S_OK || (sc >> 24) != 0x23) continue; // AssemblyRef scopes only
			for (int k = 0; core[k] && !scope; k++)
				if (wstr_eq(name, l, core[k])) scope = sc;
		}
	}
	if (e) VCALL(imp, MD_CloseEnum, CloseEnum_t)(imp, e);
	return scope;
}

// corlib_type names a core library type in this module: a TypeRef through
// the core library scope, or the core library's own TypeDef. The counting
// calls' signatures name CallConvSuppressGCTransition in a modopt; the
// runtime reads a modopt calling convention by its namespace and name only,
// it never resolves the reference.
static mdToken corlib_type(IUnknown *emit, IUnknown *imp, mdToken scope, const char *name) {
	WCHAR w[128];
	wstr(name, w);
	mdToken tk = 0;
	if (!scope) return VCALL(imp, MD_FindTypeDefByName, FindTypeDefByName_t)(imp, w, 0, &tk) == S_OK ? tk : 0;
	return FAILED(VCALL(emit, MDE_DefineTypeRefByName, DefineTypeRefByName_t)(emit, scope, w, &tk)) ? 0 : tk;
}

// unmanaged_sig makes the StandAloneSig of a native call: unmanaged
// (platform default convention), modopt(CallConvSuppressGCTransition), ret
// (void or native int), nargs native int parameters.
static mdToken unmanaged_sig(IUnknown *emit, mdToken modopt, int returns, int nargs) {
	if (!modopt) return 0;
	uint8_t sig[16];
	int k = 0;
	sig[k++] = 0x09; // IMAGE_CEE_CS_CALLCONV_UNMANAGED: the convention comes from the modopts
	sig[k++] = (uint8_t)nargs;
	sig[k++] = 0x20; // CMOD_OPT
	int l = sig_token(modopt, sig + k);
	if (!l) return 0;
	k += l;
	sig[k++] = returns ? 0x18 : 0x01; // native int or void
	for (int i = 0; i < nargs; i++) sig[k++] = 0x18;
	mdToken tok = 0;
	if (FAILED(VCALL(emit, MDE_GetTokenFromSig, GetTokenFromSig_t)(emit, sig, (ULONG)k, &tok))) return 0;
	return tok;
}

// ---- the rewrite of one method

// The return type of a method signature: pointer and length of its blob.
static int ret_type(const uint8_t *sig, ULONG n, const uint8_t **rt, uint32_t *rtlen, uint32_t *nparams) {
	const uint8_t *p = sig, *end = sig + n;
	uint32_t v;
	if (p >= end) return 0;
	uint8_t cc = *p++;
	if (cc & 0x10 && !(p = sig_uncompress(p, end, &v))) return 0;
	if (!(p = sig_uncompress(p, end, nparams))) return 0;
	const uint8_t *q = sig_skip_type(p, end);
	if (!q) return 0;
	*rt = p;
	*rtlen = (uint32_t)(q - p);
	return 1;
}

static int is_void(const uint8_t *t, uint32_t n) {
	// custom modifiers may precede void (modreq(IsExternalInit) never does, but be exact)
	const uint8_t *p = t, *end = t + n;
	uint32_t v;
	while (p < end && (*p == 0x1F || *p == 0x20)) {
		p = sig_uncompress(p + 1, end, &v);
		if (!p) return 0;
	}
	return p < end && *p == 0x01;
}

// A new locals signature: the old one's locals, then extra types appended.
// Returns the token, 0 on failure; *first is the index of the first new local.
static mdToken extend_locals(IUnknown *emit, IUnknown *imp, mdToken old, const uint8_t *extra, uint32_t extra_len,
	uint32_t nextra, uint32_t *first, const char **why) {
	const uint8_t *blob = 0, *rest = 0;
	ULONG blen = 0;
	uint32_t count = 0;
	if (old) {
		if (FAILED(VCALL(imp, MD_GetSigFromToken, GetSigFromToken_t)(imp, old, &blob, &blen)) || blen < 2 || blob[0] != 0x07) {
			*why = "unreadable locals signature";
			return 0;
		}
		rest = sig_uncompress(blob + 1, blob + blen, &count);
		if (!rest) {
			*why = "malformed locals signature";
			return 0;
		}
	}
	if (count + nextra > 0xFFFE) {
		*why = "too many locals";
		return 0;
	}
	uint32_t restlen = old ? (uint32_t)(blob + blen - rest) : 0;
	uint8_t *sig = malloc(1 + 4 + restlen + extra_len);
	if (!sig) {
		*why = "out of memory";
		return 0;
	}
	uint32_t k = 0;
	sig[k++] = 0x07;
	k += (uint32_t)sig_compress(count + nextra, sig + k);
	if (restlen) memcpy(sig + k, rest, restlen);
	k += restlen;
	memcpy(sig + k, extra, extra_len);
	k += extra_len;
	mdToken tok = 0;
	if (FAILED(VCALL(emit, MDE_GetTokenFromSig, GetTokenFromSig_t)(emit, sig, k, &tok))) {
		*why = "cannot define the new locals signature";
		tok = 0;
	}
	free(sig);
	*first = count;
	return tok;
}

// MethodImplAttributes that mean there is no ordinary IL body to rewrite.
#define MI_CODETYPE 0x0003  // not IL (native, OPTIL, runtime)
#define MI_UNMANAGED 0x0004
#define MI_INTERNALCALL 0x1000
#define MI_ASYNC 0x2000     // runtime-async: the IL belongs to a runtime-made variant

// callee_def resolves a call's method token to a MethodDef of the same
// module, when it is one: a MethodDef, a MethodSpec of one, or a MemberRef
// to a method of one of the module's own (possibly generic) types. 0 for
// methods of other modules.
static mdToken callee_def(IUnknown *imp, mdToken tk, int depth) {
	switch (tk >> 24) {
	case 0x06:
		return tk;
	case 0x2B: {
		mdToken parent = 0;
		const uint8_t *blob;
		ULONG n;
		if (depth > 0 || VCALL(imp, MD_GetMethodSpecProps, GetMethodSpecProps_t)(imp, tk, &parent, &blob, &n) != S_OK) return 0;
		return callee_def(imp, parent, depth + 1);
	}
	case 0x0A: {
		mdToken parent = 0, def = 0;
		WCHAR name[512];
		ULONG l = 0, siglen = 0;
		const uint8_t *sig = 0;
		if (VCALL(imp, MD_GetMemberRefProps, GetMemberRefProps_t)(imp, tk, &parent, name, 512, &l, &sig, &siglen) != S_OK) return 0;
		if ((parent >> 24) == 0x1B) { // TypeSpec: GENERICINST (CLASS|VALUETYPE) type ...
			const uint8_t *ts;
			ULONG tn;
			uint32_t coded;
			if (VCALL(imp, MD_GetTypeSpecFromToken, GetTypeSpecFromToken_t)(imp, parent, &ts, &tn) != S_OK || tn < 3 || ts[0] != 0x15 ||
				!sig_uncompress(ts + 2, ts + tn, &coded) || (coded & 3) != 0)
				return 0;
			parent = 0x02000000 | coded >> 2;
		}
		if ((parent >> 24) != 0x02) return 0;
		return VCALL(imp, MD_FindMethod, FindMethod_t)(imp, parent, name, sig, siglen, &def) == S_OK ? def : 0;
	}
	}
	return 0;
}

// rewrite rewrites f's body. When callees is not NULL it also returns (in a
// malloc'd array) the records of the methods of the same module that f
// calls directly, so they can be rewritten before f's compilation reads them.
static const char *rewrite(vb_fn *f, vb_fn ***callees, uint32_t *ncallees) {
	const char *why = 0;
	IUnknown *emit = 0, *imp = 0, *alloc = 0;
	uint8_t *body = 0;
	uint32_t body_len = 0;
	vb_il il = {0};
	const uint8_t *hdr = 0;
	ULONG hsize = 0;
	ModuleID mid = f->module_id;
	mdToken tok = f->token;

	if (FAILED(VCALL(vb_info, INFO_GetILFunctionBody, GetILFunctionBody_t)(vb_info, mid, tok, &hdr, &hsize)) || !hdr) {
		why = "no IL body";
		goto done;
	}
	if (!vb_il_decode(hdr, hsize, &il, &why)) goto done;
	if (FAILED(VCALL(vb_info, INFO_GetModuleMetaData, GetModuleMetaData_t)(vb_info, mid, ofRead | ofWrite, &IID_IMetaDataEmit_, &emit)) || !emit ||
		FAILED(VCALL(emit, 0, QI_t)(emit, &IID_IMetaDataImport2_, (void **)&imp)) || !imp) {
		why = "the module's metadata cannot be written";
		goto done;
	}
	mdToken td = 0;
	uint32_t attr = 0, impl = 0;
	const uint8_t *msig = 0;
	ULONG msiglen = 0, rva = 0;
	if (FAILED(VCALL(imp, MD_GetMethodProps, GetMethodProps_t)(imp, tok, &td, 0, 0, 0, &attr, &msig, &msiglen, &rva, &impl))) {
		why = "unreadable method properties";
		goto done;
	}
	if (impl & (MI_CODETYPE | MI_UNMANAGED | MI_INTERNALCALL)) {
		why = "not an IL method";
		goto done;
	}
	if (impl & MI_ASYNC) {
		why = "runtime-async method";
		goto done;
	}
	for (uint32_t i = 0; i < il.ninsns; i++)
		if (il.insns[i].op == OP_TAIL) {
			why = "explicit tail call";
			goto done;
		}

	const uint8_t *rt;
	uint32_t rtlen, nparams;
	if (!ret_type(msig, msiglen, &rt, &rtlen, &nparams)) {
		why = "malformed method signature";
		goto done;
	}
	int has_ret = 0;
	for (uint32_t i = 0; i < il.ninsns; i++)
		if (il.insns[i].op == OP_RET) has_ret = 1;

	vb_il_plan plan = {
		.fn = (uint64_t)(uintptr_t)f,
		.thread_fn = (uint64_t)(uintptr_t)vb_ithread,
		.enter_slow = (uint64_t)(uintptr_t)vb_ienter,
		.time_fn = (uint64_t)(uintptr_t)vb_itime,
		.leave_slow = (uint64_t)(uintptr_t)vb_ileave,
		.unwind = (uint64_t)(uintptr_t)vb_iunwind,
		.ret_local = -1,
	};
	// New locals: the thread, the caller's node and the frame's node
	// (native ints), then the return value.
	uint8_t *extra = malloc(3 + rtlen);
	if (!extra) {
		why = "out of memory";
		goto done;
	}
	extra[0] = extra[1] = extra[2] = 0x18;
	memcpy(extra + 3, rt, rtlen);
	int keep_ret = has_ret && !is_void(rt, rtlen);
	uint32_t first;
	plan.local_sig = extend_locals(emit, imp, il.local_sig, extra, keep_ret ? 3 + rtlen : 3, keep_ret ? 4 : 3, &first, &why);
	free(extra);
	if (!plan.local_sig) goto done;
	plan.t_local = first;
	plan.a_local = first + 1;
	plan.node_local = first + 2;
	if (keep_ret) plan.ret_local = (int32_t)first + 3;

	modstate *ms = mods;
	while (ms && ms->mid != mid) ms = ms->next;
	if (!ms) {
		mdToken scope = corlib_scope(imp);
		mdToken mo = corlib_type(emit, imp, scope, "System.Runtime.CompilerServices.CallConvSuppressGCTransition");
		modstate m = {.mid = mid, .next = mods};
		m.sig_p0 = unmanaged_sig(emit, mo, 1, 0);
		m.sig_p1 = unmanaged_sig(emit, mo, 1, 1);
		m.sig_v1 = unmanaged_sig(emit, mo, 0, 1);
		m.sig_v2 = unmanaged_sig(emit, mo, 0, 2);
		if (!m.sig_p0 || !m.sig_p1 || !m.sig_v1 || !m.sig_v2) {
			why = "cannot define the counting calls' signatures in this module";
			goto done;
		}
		ms = malloc(sizeof *ms);
		if (!ms) {
			why = "out of memory";
			goto done;
		}
		*ms = m;
		mods = ms;
	}
	plan.sig_p0 = ms->sig_p0;
	plan.sig_p1 = ms->sig_p1;
	plan.sig_v1 = ms->sig_v1;
	plan.sig_v2 = ms->sig_v2;

	if (!vb_il_rewrite(&il, &plan, &body, &body_len, &why)) goto done;
	if (FAILED(VCALL(vb_info, INFO_GetILFunctionBodyAllocator, GetILFunctionBodyAllocator_t)(vb_info, mid, &alloc)) || !alloc) {
		why = "no IL allocator for the module";
		goto done;
	}
	uint8_t *dst = VCALL(alloc, MALLOC_Alloc, Alloc_t)(alloc, body_len);
	if (!dst || ((uintptr_t)dst & 3)) {
		why = "the IL allocator failed";
		goto done;
	}
	memcpy(dst, body, body_len);
	if (FAILED(VCALL(vb_info, INFO_SetILFunctionBody, SetILFunctionBody_t)(vb_info, mid, tok, dst))) {
		why = "the runtime refused the new body";
		goto done;
	}
	if (callees) {
		vb_fn **cs = 0;
		uint32_t n = 0;
		for (uint32_t i = 0; i < il.ninsns; i++) {
			uint16_t op = il.insns[i].op;
			if (op != OP_CALL && op != OP_CALLVIRT && op != OP_NEWOBJ) continue;
			mdToken def = callee_def(imp, (mdToken)il.insns[i].arg, 0), ctd;
			uint32_t cattr = 0, cimpl = 0;
			ULONG crva = 0;
			// Only methods with an IL body of their own (not abstract, extern or runtime-made).
			if (!def || FAILED(VCALL(imp, MD_GetMethodProps, GetMethodProps_t)(imp, def, &ctd, 0, 0, 0, &cattr, 0, 0, &crva, &cimpl)) ||
				crva == 0 || (cimpl & (MI_CODETYPE | MI_UNMANAGED | MI_INTERNALCALL)))
				continue;
			vb_fn *g = vb_fn_for_method(mid, def, imp);
			if (!g || !g->user || g->instr != VB_INSTR_NONE || g == f) continue;
			vb_fn **ncs = realloc(cs, (n + 1) * sizeof *cs);
			if (!ncs) break;
			cs = ncs;
			cs[n++] = g;
		}
		*callees = cs;
		*ncallees = n;
	}
done:
	free(body);
	vb_il_free(&il);
	release(alloc);
	release(imp);
	release(emit);
	return why;
}

// ensure_locked rewrites f once (mu held); with_callees: and the methods of
// its module it calls directly (one level).
static void ensure_locked(vb_fn *f, int with_callees) {
	if (f->instr != VB_INSTR_NONE) return;
	vb_fn **callees = 0;
	uint32_t n = 0;
	const char *why = rewrite(f, with_callees ? &callees : 0, &n);
	if (why) {
		f->instr = VB_INSTR_SKIPPED;
		f->skip_reason = why;
		vb_instr_skipped++;
		vb_log("instrumentation: left %s (%s) alone: %s", f->name, f->module, why);
	} else {
		f->instr = VB_INSTR_DONE;
		f->instr_epoch = ++epoch;
		vb_instr_rewritten++;
	}
	for (uint32_t i = 0; i < n; i++) ensure_locked(callees[i], 0);
	free(callees);
}

// ensure rewrites f (and its direct callees) once; returns its rewrite
// number, 0 if it was left alone.
static uint32_t ensure(vb_fn *f) {
	pthread_mutex_lock(&mu);
	ensure_locked(f, 1);
	uint32_t e = f->instr == VB_INSTR_DONE ? f->instr_epoch : 0;
	pthread_mutex_unlock(&mu);
	return e;
}

static uint32_t current_epoch(void) { return __atomic_load_n(&epoch, __ATOMIC_ACQUIRE); }

void vb_instr_jit_started(FunctionID fid) {
	__atomic_fetch_add(&vb_jit_compilations, 1, __ATOMIC_RELAXED);
	if (vb_fn_user_quick(fid)) {
		vb_fn *f = vb_fn_for_function(fid);
		if (f && f->user) ensure(f);
	}
	if (jit_depth++ == 0) jit_epoch = current_epoch();
}

void vb_instr_jit_finished(void) {
	if (jit_depth > 0) jit_depth--;
}

// Precompiled code of a selected method would run uncounted: refuse it, so
// the method is JIT-compiled (and rewritten first).
int vb_instr_use_precompiled(FunctionID fid) {
	if (!vb_fn_user_quick(fid)) return 1;
	__atomic_fetch_add(&vb_instr_refused_r2r, 1, __ATOMIC_RELAXED);
	return 0;
}

// JITInlining: a selected callee is rewritten before anything inlines it; an
// inline whose IL may predate the rewrite is refused (see epoch).
int vb_instr_may_inline(FunctionID callee) {
	if (!vb_fn_user_quick(callee)) return 1;
	vb_fn *f = vb_fn_for_function(callee);
	if (!f || !f->user) return 1;
	uint32_t e = ensure(f);
	if (e == 0) return 1; // left alone: nothing to count in it
	if (jit_depth == 0 || e > jit_epoch) {
		__atomic_fetch_add(&vb_instr_refused_inlines, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return 1;
}

void vb_instr_module_unloaded(ModuleID mid) {
	pthread_mutex_lock(&mu);
	for (modstate **p = &mods; *p; p = &(*p)->next) {
		if ((*p)->mid == mid) {
			modstate *d = *p;
			*p = d->next;
			free(d);
			break;
		}
	}
	pthread_mutex_unlock(&mu);
}
