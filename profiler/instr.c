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
#include "ilsig.h"

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
uint64_t vb_instr_rewrite_ns; // time spent rewriting (under the lock)

static void release(void *p) {
	if (p) VCALL(p, UNK_Release, Release_t)(p);
}

// ---- per-module state: the calli signature tokens, made once per module,
// and the locals signatures already defined (blob -> token): the runtime's
// GetTokenFromSig finds an existing equal signature by scanning every one
// in the module, which for tens of thousands of rewritten methods of one
// module (the core library under --include '*') is quadratic.
typedef struct sigent {
	uint64_t hash;
	uint8_t *blob;
	uint32_t len;
	mdToken tok;
} sigent;

typedef struct modstate {
	ModuleID mid;
	mdToken sig_p0, sig_p1, sig_v1, sig_v2;
	sigent *sigs; // open addressing, cap a power of two
	uint32_t nsigs, capsigs;
	struct modstate *next;
} modstate;
static modstate *mods;
uint64_t vb_instr_sig_hits, vb_instr_sig_misses;

static modstate *modstate_for(ModuleID mid) {
	for (modstate *m = mods; m; m = m->next)
		if (m->mid == mid) return m;
	return 0;
}

static uint64_t fnv(const uint8_t *p, uint32_t n) {
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
	return h | 1; // 0 marks an empty slot
}

// sig_token_cached returns a token for the signature blob in module m,
// asking the runtime only for blobs this module has not seen.
static mdToken sig_token_cached(modstate *m, IUnknown *emit, const uint8_t *blob, uint32_t len) {
	uint64_t h = fnv(blob, len);
	if (m && m->capsigs) {
		for (uint32_t i = (uint32_t)h & (m->capsigs - 1);; i = (i + 1) & (m->capsigs - 1)) {
			sigent *e = &m->sigs[i];
			if (!e->hash) break;
			if (e->hash == h && e->len == len && memcmp(e->blob, blob, len) == 0) {
				vb_instr_sig_hits++;
				return e->tok;
			}
		}
	}
	mdToken tok = 0;
	if (FAILED(VCALL(emit, MDE_GetTokenFromSig, GetTokenFromSig_t)(emit, blob, len, &tok))) return 0;
	vb_instr_sig_misses++;
	if (!m) return tok;
	if ((m->nsigs + 1) * 2 > m->capsigs) { // grow, rehash
		uint32_t cap = m->capsigs ? m->capsigs * 2 : 256;
		sigent *ns = calloc(cap, sizeof *ns);
		if (!ns) return tok;
		for (uint32_t j = 0; j < m->capsigs; j++) {
			sigent *e = &m->sigs[j];
			if (!e->hash) continue;
			uint32_t i = (uint32_t)e->hash & (cap - 1);
			while (ns[i].hash) i = (i + 1) & (cap - 1);
			ns[i] = *e;
		}
		free(m->sigs);
		m->sigs = ns;
		m->capsigs = cap;
	}
	uint8_t *copy = malloc(len);
	if (!copy) return tok;
	memcpy(copy, blob, len);
	uint32_t i = (uint32_t)h & (m->capsigs - 1);
	while (m->sigs[i].hash) i = (i + 1) & (m->capsigs - 1);
	m->sigs[i] = (sigent){h, copy, len, tok};
	m->nsigs++;
	return tok;
}

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
	HCORENUM e = 0;
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

// is_void: whether a return type blob is void (after any custom modifiers).
static int is_void(const uint8_t *t, uint32_t n) {
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
static mdToken extend_locals(modstate *ms, IUnknown *emit, IUnknown *imp, mdToken old, const uint8_t *extra, uint32_t extra_len,
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
	mdToken tok = sig_token_cached(ms, emit, sig, k);
	if (!tok) *why = "cannot define the new locals signature";
	free(sig);
	*first = count;
	return tok;
}

// is_value_type: whether TypeDef td derives from System.ValueType or
// System.Enum (read from its base type's name, no type loading).
static int is_value_type(IUnknown *imp, mdToken td) {
	uint32_t flags = 0;
	mdToken ext = 0;
	WCHAR name[64];
	ULONG l = 0;
	if (VCALL(imp, MD_GetTypeDefProps, GetTypeDefProps_t)(imp, td, 0, 0, 0, &flags, &ext) != S_OK || !ext) return 0;
	if ((ext >> 24) == 0x01) {
		mdToken sc;
		if (VCALL(imp, MD_GetTypeRefProps, GetTypeRefProps_t)(imp, ext, &sc, name, 64, &l) != S_OK) return 0;
	} else if ((ext >> 24) == 0x02) {
		if (VCALL(imp, MD_GetTypeDefProps, GetTypeDefProps_t)(imp, ext, name, 64, &l, 0, 0) != S_OK) return 0;
	} else
		return 0;
	return wstr_eq(name, l, "System.ValueType") || wstr_eq(name, l, "System.Enum");
}

static void put_type_token(vb_bytes *b, uint8_t kind, mdToken tk) {
	uint8_t enc[5];
	enc[0] = kind;
	int l = sig_token(tk, enc + 1);
	vb_bytes_put(b, enc, (uint32_t)(1 + l));
}

#define MAXGEN 64

// tail_arg_types appends to locals the types of the arguments a tail call
// (call, callvirt or calli with token tok) leaves on the stack, in push
// order, calli's target last, and returns how many; -1 with *why when the
// site cannot be spilled to locals.
static int tail_arg_types(IUnknown *imp, uint16_t op, mdToken tok, vb_bytes *locals, const char **why) {
	const uint8_t *sig = 0, *end;
	ULONG siglen = 0;
	vb_span cargs[MAXGEN], margs[MAXGEN];
	uint32_t nca = 0, nma = 0, v, nparams;
	int has_ca = 0, has_ma = 0, count = 0;
	mdToken owner = 0, method = tok;
	const uint8_t *ts = 0;
	ULONG tslen = 0;
	*why = "a tail call whose arguments cannot be typed";
	if (op == OP_CALLI) {
		if (VCALL(imp, MD_GetSigFromToken, GetSigFromToken_t)(imp, tok, &sig, &siglen) != S_OK) return -1;
	} else {
		if ((method >> 24) == 0x2B) {
			const uint8_t *inst;
			ULONG instlen;
			if (VCALL(imp, MD_GetMethodSpecProps, GetMethodSpecProps_t)(imp, method, &method, &inst, &instlen) != S_OK || instlen < 2 || inst[0] != 0x0A ||
				!sig_generic_args(inst + 1, inst + instlen, margs, MAXGEN, &nma))
				return -1;
			has_ma = 1;
		}
		if ((method >> 24) == 0x06) {
			uint32_t attr, impl;
			ULONG rva;
			if (VCALL(imp, MD_GetMethodProps, GetMethodProps_t)(imp, method, &owner, 0, 0, 0, &attr, &sig, &siglen, &rva, &impl) != S_OK) return -1;
		} else if ((method >> 24) == 0x0A) {
			if (VCALL(imp, MD_GetMemberRefProps, GetMemberRefProps_t)(imp, method, &owner, 0, 0, 0, &sig, &siglen) != S_OK) return -1;
		} else
			return -1;
		if ((owner >> 24) == 0x1B) {
			if (VCALL(imp, MD_GetTypeSpecFromToken, GetTypeSpecFromToken_t)(imp, owner, &ts, &tslen) != S_OK || tslen < 1) return -1;
			if (ts[0] == 0x15) { // GENERICINST kind token count args
				const uint8_t *q = tslen >= 3 ? sig_uncompress(ts + 2, ts + tslen, &v) : 0;
				if (!q || !sig_generic_args(q, ts + tslen, cargs, MAXGEN, &nca)) return -1;
				has_ca = 1;
			}
		}
	}
	end = sig + siglen;
	const uint8_t *p = sig;
	if (p >= end) return -1;
	uint8_t cc = *p++;
	if ((cc & 0x0F) == 0x05) {
		*why = "a tail call with a variable argument list";
		return -1;
	}
	if (cc & 0x10) { // a generic method: its instantiation must be known
		if (!(p = sig_uncompress(p, end, &v)) || (op != OP_CALLI && !has_ma)) return -1;
	}
	if (!(p = sig_uncompress(p, end, &nparams)) || !(p = sig_skip_type(p, end))) return -1;
	if ((cc & 0x20) && !(cc & 0x40)) { // an implicit this
		if (op == OP_CALLI) return -1;
		if ((owner >> 24) == 0x1B) {
			if (ts[0] == 0x13 || ts[0] == 0x1E) return -1; // this of a type parameter needs constrained.
			if (ts[0] == 0x15 && tslen > 1 && ts[1] == 0x11) vb_bytes_put(locals, "\x10", 1); // BYREF to the value type
			vb_bytes_put(locals, ts, tslen);
		} else if ((owner >> 24) == 0x02) {
			if (is_value_type(imp, owner)) {
				vb_bytes_put(locals, "\x10", 1);
				put_type_token(locals, 0x11, owner);
			} else
				put_type_token(locals, 0x12, owner);
		} else if ((owner >> 24) == 0x01 && op == OP_CALLVIRT) {
			put_type_token(locals, 0x12, owner); // callvirt's this is an object reference
		} else {
			*why = "a tail call to an instance method of a type from another module";
			return -1;
		}
		count++;
	}
	for (uint32_t i = 0; i < nparams; i++) {
		if (p < end && *p == 0x41) return -1;
		p = sig_copy_type(p, end, has_ca ? cargs : 0, nca, has_ma ? margs : 0, nma, locals);
		if (!p) return -1;
		count++;
	}
	if (op == OP_CALLI) {
		vb_bytes_put(locals, "\x18", 1); // the target
		count++;
	}
	return locals->oom ? -1 : count;
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

// The state of one rewrite; every resource is released by rw_free.
typedef struct {
	vb_fn *f;
	IUnknown *emit, *imp, *alloc;
	vb_il il;
	const uint8_t *msig; // the method's signature
	ULONG msiglen;
	vb_bytes tail_types; // tail call sites' argument types, in order
	vb_tailsite *tails;
	uint32_t ntails, ntail_locals;
	uint16_t *tail_locals;
	vb_il_plan plan;
	modstate *ms;
	uint8_t *body;
	uint32_t body_len;
} rw;

static void rw_free(rw *r) {
	free(r->tail_types.b);
	free(r->tails);
	free(r->tail_locals);
	free(r->body);
	vb_il_free(&r->il);
	release(r->alloc);
	release(r->imp);
	release(r->emit);
}

// rw_open reads the body and the method's metadata and checks it has an
// ordinary IL body.
static const char *rw_open(rw *r) {
	const char *why = 0;
	const uint8_t *hdr = 0;
	ULONG hsize = 0;
	mdToken td = 0;
	uint32_t attr = 0, impl = 0;
	ULONG rva = 0;
	ModuleID mid = r->f->module_id;
	if (FAILED(VCALL(vb_info, INFO_GetILFunctionBody, GetILFunctionBody_t)(vb_info, mid, r->f->token, &hdr, &hsize)) || !hdr) return "no IL body";
	if (!vb_il_decode(hdr, hsize, &r->il, &why)) return why;
	if (FAILED(VCALL(vb_info, INFO_GetModuleMetaData, GetModuleMetaData_t)(vb_info, mid, ofRead | ofWrite, &IID_IMetaDataEmit_, &r->emit)) || !r->emit ||
		FAILED(VCALL(r->emit, UNK_QueryInterface, QI_t)(r->emit, &IID_IMetaDataImport2_, (void **)&r->imp)) || !r->imp)
		return "the module's metadata cannot be written";
	if (FAILED(VCALL(r->imp, MD_GetMethodProps, GetMethodProps_t)(r->imp, r->f->token, &td, 0, 0, 0, &attr, &r->msig, &r->msiglen, &rva, &impl)))
		return "unreadable method properties";
	if (impl & (MI_CODETYPE | MI_UNMANAGED | MI_INTERNALCALL)) return "not an IL method";
	if (impl & MI_ASYNC) return "runtime-async method";
	return 0;
}

// rw_tails finds the explicit tail calls and types their arguments: they
// go to new locals, so that the call can be made after the frame closed,
// outside the try.
static const char *rw_tails(rw *r) {
	const char *why = 0;
	for (uint32_t i = 0; i < r->il.ninsns; i++) {
		if (r->il.insns[i].op != OP_TAIL) continue;
		uint16_t next = i + 1 < r->il.ninsns ? r->il.insns[i + 1].op : 0;
		uint16_t prev = i > 0 ? r->il.insns[i - 1].op : 0;
		if (next != OP_CALL && next != OP_CALLVIRT && next != OP_CALLI) return "a tail. prefix not followed by a call";
		if (prev == 0xFE12 || prev == 0xFE13 || prev == 0xFE16 || prev == 0xFE19 || prev == 0xFE1E) return "a tail call with another prefix";
		int k = tail_arg_types(r->imp, next, (mdToken)r->il.insns[i + 1].arg, &r->tail_types, &why);
		if (k < 0) return why;
		vb_tailsite *nt = realloc(r->tails, (r->ntails + 1) * sizeof *nt);
		if (!nt) return "out of memory";
		r->tails = nt;
		r->tails[r->ntails++] = (vb_tailsite){.insn = i, .nlocals = (uint32_t)k};
		r->ntail_locals += (uint32_t)k;
	}
	return 0;
}

// rw_locals adds the locals the rewritten body needs: the thread, the
// caller's node and the frame's node (native ints), the return value (when
// the method returns one), the tail calls' arguments.
static const char *rw_locals(rw *r) {
	const char *why = 0;
	const uint8_t *rt;
	uint32_t rtlen, nparams, first = 0;
	if (!ret_type(r->msig, r->msiglen, &rt, &rtlen, &nparams)) return "malformed method signature";
	int has_ret = 0;
	for (uint32_t i = 0; i < r->il.ninsns; i++)
		if (r->il.insns[i].op == OP_RET) has_ret = 1;
	int keep_ret = has_ret && !is_void(rt, rtlen);
	vb_bytes extra = {0};
	vb_bytes_put(&extra, "\x18\x18\x18", 3);
	if (keep_ret) vb_bytes_put(&extra, rt, rtlen);
	vb_bytes_put(&extra, r->tail_types.b, r->tail_types.n);
	if (extra.oom) {
		free(extra.b);
		return "out of memory";
	}
	r->plan.local_sig = extend_locals(r->ms, r->emit, r->imp, r->il.local_sig, extra.b, extra.n, 3 + (uint32_t)keep_ret + r->ntail_locals, &first, &why);
	free(extra.b);
	if (!r->plan.local_sig) return why;
	r->plan.t_local = first;
	r->plan.a_local = first + 1;
	r->plan.node_local = first + 2;
	r->plan.ret_local = keep_ret ? (int32_t)first + 3 : -1;
	uint32_t next = first + 3 + (uint32_t)keep_ret;
	if (r->ntail_locals && !(r->tail_locals = malloc(r->ntail_locals * sizeof *r->tail_locals))) return "out of memory";
	for (uint32_t k = 0, at = 0; k < r->ntails; k++) {
		r->tails[k].locals = r->tail_locals + at;
		for (uint32_t j = 0; j < r->tails[k].nlocals; j++) r->tail_locals[at++] = (uint16_t)next++;
	}
	r->plan.tails = r->tails;
	r->plan.ntails = r->ntails;
	return 0;
}

// rw_sigs gets the module's counting-call signatures (made once per module).
static const char *rw_sigs(rw *r) {
	ModuleID mid = r->f->module_id;
	modstate *ms = modstate_for(mid);
	if (!ms) {
		mdToken mo = corlib_type(r->emit, r->imp, corlib_scope(r->imp), "System.Runtime.CompilerServices.CallConvSuppressGCTransition");
		modstate m = {.mid = mid, .next = mods};
		m.sig_p0 = unmanaged_sig(r->emit, mo, 1, 0);
		m.sig_p1 = unmanaged_sig(r->emit, mo, 1, 1);
		m.sig_v1 = unmanaged_sig(r->emit, mo, 0, 1);
		m.sig_v2 = unmanaged_sig(r->emit, mo, 0, 2);
		if (!m.sig_p0 || !m.sig_p1 || !m.sig_v1 || !m.sig_v2) return "cannot define the counting calls' signatures in this module";
		if (!(ms = malloc(sizeof *ms))) return "out of memory";
		*ms = m;
		mods = ms;
	}
	r->ms = ms;
	r->plan.sig_p0 = ms->sig_p0;
	r->plan.sig_p1 = ms->sig_p1;
	r->plan.sig_v1 = ms->sig_v1;
	r->plan.sig_v2 = ms->sig_v2;
	return 0;
}

// Lines (VBENCH_LINES=1): each rewritten method counts its basic blocks'
// executions; the PDB's sequence points are mapped to the blocks holding
// them after the run (internal/lines). The list is only prepended to,
// under the rewrite lock, and read at the write.
vb_lblocks *vb_lblocks_head;

static vb_lblocks *line_blocks(rw *r) {
	uint32_t n = vb_il_leaders(&r->il, 0, 0);
	vb_lblocks *lb = calloc(1, sizeof *lb);
	if (!lb || !n) return free(lb), (vb_lblocks *)0;
	lb->offs = calloc(n, sizeof *lb->offs);
	lb->counts = calloc(n, sizeof *lb->counts);
	if (!lb->offs || !lb->counts) return free(lb->offs), free(lb->counts), free(lb), (vb_lblocks *)0;
	lb->n = vb_il_leaders(&r->il, lb->offs, n);
	lb->fn = r->f;
	r->plan.leaders = lb->offs;
	r->plan.counts = lb->counts;
	r->plan.nleaders = lb->n;
	return lb;
}

// rw_install emits the new body and hands it to the runtime.
static const char *rw_install(rw *r) {
	const char *why = 0;
	ModuleID mid = r->f->module_id;
	r->plan.fn = (uint64_t)(uintptr_t)r->f;
	r->plan.fn_id = r->f->id;
	r->plan.thread_fn = (uint64_t)(uintptr_t)vb_ithread;
	r->plan.enter_slow = (uint64_t)(uintptr_t)vb_ienter;
	r->plan.time_fn = (uint64_t)(uintptr_t)vb_itime;
	r->plan.leave_slow = (uint64_t)(uintptr_t)vb_ileave;
	r->plan.unwind = (uint64_t)(uintptr_t)vb_iunwind;
	vb_lblocks *lb = vb_lines ? line_blocks(r) : 0;
	if (!vb_il_rewrite(&r->il, &r->plan, &r->body, &r->body_len, &why)) return why;
	if (FAILED(VCALL(vb_info, INFO_GetILFunctionBodyAllocator, GetILFunctionBodyAllocator_t)(vb_info, mid, &r->alloc)) || !r->alloc)
		return "no IL allocator for the module";
	uint8_t *dst = VCALL(r->alloc, MALLOC_Alloc, Alloc_t)(r->alloc, r->body_len);
	if (!dst || ((uintptr_t)dst & 3)) return "the IL allocator failed";
	memcpy(dst, r->body, r->body_len);
	if (FAILED(VCALL(vb_info, INFO_SetILFunctionBody, SetILFunctionBody_t)(vb_info, mid, r->f->token, dst))) return "the runtime refused the new body";
	if (lb) { // published once its body is the method's
		lb->next = vb_lblocks_head;
		__atomic_store_n(&vb_lblocks_head, lb, __ATOMIC_RELEASE);
	}
	return 0;
}

// rw_callees lists the not yet rewritten, selected methods of the same
// module that the body calls directly and that have an IL body of their own.
static void rw_callees(rw *r, vb_fn ***callees, uint32_t *ncallees) {
	vb_fn **cs = 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->il.ninsns; i++) {
		uint16_t op = r->il.insns[i].op;
		if (op != OP_CALL && op != OP_CALLVIRT && op != OP_NEWOBJ) continue;
		mdToken def = callee_def(r->imp, (mdToken)r->il.insns[i].arg, 0), td;
		uint32_t attr = 0, impl = 0;
		ULONG rva = 0;
		if (!def || FAILED(VCALL(r->imp, MD_GetMethodProps, GetMethodProps_t)(r->imp, def, &td, 0, 0, 0, &attr, 0, 0, &rva, &impl)) ||
			rva == 0 || (impl & (MI_CODETYPE | MI_UNMANAGED | MI_INTERNALCALL)))
			continue;
		vb_fn *g = vb_fn_for_method(r->f->module_id, def, r->imp);
		if (!g || !g->user || g->instr != VB_INSTR_NONE || g == r->f) continue;
		vb_fn **ncs = realloc(cs, (n + 1) * sizeof *cs);
		if (!ncs) break;
		cs = ncs;
		cs[n++] = g;
	}
	*callees = cs;
	*ncallees = n;
}

// rewrite rewrites f's body; returns why not, or NULL. When callees is not
// NULL it also returns (malloc'd) the methods of the same module that f calls
// directly, so they can be rewritten before f's compilation reads them.
static const char *rewrite(vb_fn *f, vb_fn ***callees, uint32_t *ncallees) {
	rw r = {.f = f};
	const char *why = rw_open(&r);
	if (!why) why = rw_tails(&r);
	if (!why) why = rw_sigs(&r);
	if (!why) why = rw_locals(&r);
	if (!why) why = rw_install(&r);
	if (!why && callees) rw_callees(&r, callees, ncallees);
	rw_free(&r);
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
	if (f->instr == VB_INSTR_NONE) {
		int64_t t0 = vb_mono_ns();
		ensure_locked(f, 1);
		vb_instr_rewrite_ns += (uint64_t)(vb_mono_ns() - t0);
	}
	uint32_t e = f->instr == VB_INSTR_DONE ? f->instr_epoch : 0;
	pthread_mutex_unlock(&mu);
	return e;
}

static uint32_t current_epoch(void) { return __atomic_load_n(&epoch, __ATOMIC_ACQUIRE); }

// Types whose methods were rewritten for a generic instantiation (module,
// TypeDef), so each is enumerated once.
typedef struct seen_type {
	ModuleID mid;
	mdToken td;
	struct seen_type *next;
} seen_type;
static seen_type *seen_types;

// rewrite_type rewrites the selected methods of type td of module mid that
// have an IL body (mu held).
static void rewrite_type(ModuleID mid, mdToken td) {
	for (seen_type *s = seen_types; s; s = s->next)
		if (s->mid == mid && s->td == td) return;
	seen_type *n = malloc(sizeof *n);
	if (!n) return;
	*n = (seen_type){mid, td, seen_types};
	seen_types = n;
	IUnknown *imp = 0;
	if (FAILED(VCALL(vb_info, INFO_GetModuleMetaData, GetModuleMetaData_t)(vb_info, mid, ofRead, &IID_IMetaDataImport2_, &imp)) || !imp) return;
	HCORENUM e = 0;
	mdToken ms[64];
	ULONG k = 0;
	while (VCALL(imp, MD_EnumMethods, EnumMethods_t)(imp, &e, td, ms, 64, &k) == S_OK && k > 0) {
		for (ULONG i = 0; i < k; i++) {
			mdToken ctd;
			uint32_t attr = 0, impl = 0;
			ULONG rva = 0;
			if (FAILED(VCALL(imp, MD_GetMethodProps, GetMethodProps_t)(imp, ms[i], &ctd, 0, 0, 0, &attr, 0, 0, &rva, &impl)) || rva == 0 ||
				(impl & (MI_CODETYPE | MI_UNMANAGED | MI_INTERNALCALL)))
				continue;
			vb_fn *g = vb_fn_for_method(mid, ms[i], imp);
			if (g && g->user) ensure_locked(g, 0);
		}
	}
	if (e) VCALL(imp, MD_CloseEnum, CloseEnum_t)(imp, e);
	release(imp);
}

// rewrite_type_args: code instantiated over value types (Visit<MyStruct>,
// Dictionary<MyKey, V>) calls their methods through constrained calls the
// JIT resolves, and inlines, only while compiling it. Those methods are
// rewritten before the compilation starts reading IL, or every such inline
// would be refused. (Reference types share one canonical instantiation.)
static void rewrite_type_args(FunctionID fid) {
	ClassID cls = 0, args[8], cargs[8];
	ModuleID mid = 0;
	mdToken tok = 0;
	uint32_t n = 0, cn = 0;
	if (FAILED(VCALL(vb_info, INFO_GetFunctionInfo2, GetFunctionInfo2_t)(vb_info, fid, 0, &cls, &mid, &tok, 8, &n, args))) return;
	if (n > 8) n = 8;
	if (cls && !FAILED(VCALL(vb_info, INFO_GetClassIDInfo2, GetClassIDInfo2_t)(vb_info, cls, 0, 0, 0, 8, &cn, cargs))) {
		if (cn > 8) cn = 8;
		for (uint32_t i = 0; i < cn && n < 8; i++) args[n++] = cargs[i];
	}
	if (n == 0) return;
	pthread_mutex_lock(&mu);
	for (uint32_t i = 0; i < n; i++) {
		ModuleID amid = 0;
		mdToken atd = 0;
		ClassID parent = 0;
		uint32_t an = 0;
		if (!args[i] || FAILED(VCALL(vb_info, INFO_GetClassIDInfo2, GetClassIDInfo2_t)(vb_info, args[i], &amid, &atd, &parent, 0, &an, 0)) || !amid || !atd)
			continue;
		if (!vb_module_selectable(amid)) continue;
		rewrite_type(amid, atd);
	}
	pthread_mutex_unlock(&mu);
}

void vb_instr_jit_started(FunctionID fid) {
	__atomic_fetch_add(&vb_jit_compilations, 1, __ATOMIC_RELAXED);
	if (vb_fn_user_quick(fid)) {
		vb_fn *f = vb_fn_for_function(fid);
		if (f && f->user) ensure(f);
	}
	rewrite_type_args(fid);
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
			for (uint32_t i = 0; i < d->capsigs; i++) free(d->sigs[i].blob);
			free(d->sigs);
			free(d);
			break;
		}
	}
	pthread_mutex_unlock(&mu);
}
