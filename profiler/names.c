// Function records: each method resolves once, through the metadata API, to
// Namespace.Type.Method plus its module and assembly, and gets its filter
// decision. All FunctionIDs of one method (generic instantiations) share one
// record, so their calls sum in the call tree. Everything here is cold: it
// runs in FunctionIDMapper2, on the sampler thread, and in exception
// callbacks, under one mutex.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vb.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

// ---- the function table: stable pointers in fixed blocks, readable while it grows
#define BLOCK_BITS 12
#define BLOCK (1u << BLOCK_BITS)
#define NBLOCKS 4096
static vb_fn **blocks[NBLOCKS];
static uint32_t nfn; // published with release after the slot is filled

uint32_t vb_fn_count(void) { return __atomic_load_n(&nfn, __ATOMIC_ACQUIRE); }
vb_fn *vb_fn_at(uint32_t i) { return blocks[i >> BLOCK_BITS][i & (BLOCK - 1)]; }

static vb_fn *fn_append(vb_fn *f) {
	uint32_t i = nfn;
	if (i >= (uint32_t)NBLOCKS * BLOCK) return 0;
	if (!blocks[i >> BLOCK_BITS]) {
		blocks[i >> BLOCK_BITS] = calloc(BLOCK, sizeof(vb_fn *));
		if (!blocks[i >> BLOCK_BITS]) return 0;
	}
	f->id = i;
	blocks[i >> BLOCK_BITS][i & (BLOCK - 1)] = f;
	__atomic_store_n(&nfn, i + 1, __ATOMIC_RELEASE);
	return f;
}

// ---- a small open-addressing map uintptr_t -> pointer (grows under mu)
typedef struct {
	uintptr_t *keys;
	void **vals;
	size_t cap, n;
} map;

static size_t hash(uintptr_t k) {
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static void *map_get(map *m, uintptr_t k) {
	if (!m->cap) return 0;
	for (size_t i = hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k) return m->vals[i];
		if (m->keys[i] == 0) return 0;
	}
}

static void map_put(map *m, uintptr_t k, void *v) {
	if ((m->n + 1) * 2 > m->cap) {
		map old = *m;
		m->cap = old.cap ? old.cap * 2 : 1024;
		m->keys = calloc(m->cap, sizeof(uintptr_t));
		m->vals = calloc(m->cap, sizeof(void *));
		m->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i]) map_put(m, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	size_t i = hash(k) & (m->cap - 1);
	while (m->keys[i] != 0 && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
	if (m->keys[i] == 0) m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
}

static map by_fid;    // FunctionID -> vb_fn
static map by_method; // hash(module, token) -> chain of vb_fn
static map modules;   // ModuleID -> struct module

typedef struct module {
	char *file, *assembly;
	char *path; // the module's file as the runtime loaded it (its PDB is found from there)
	int8_t framework; // assembly matches a default exclusion (-1: not known yet)
} module;

// ---- strings
static char *utf8(const WCHAR *s, ULONG n) {
	char *out = malloc((size_t)n * 3 + 1), *o = out;
	if (!out) return 0;
	for (ULONG i = 0; i < n && s[i]; i++) {
		uint32_t c = s[i];
		if (c >= 0xD800 && c < 0xDC00 && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] < 0xE000) {
			c = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00);
			i++;
		}
		if (c < 0x80) *o++ = (char)c;
		else if (c < 0x800) { *o++ = 0xC0 | (c >> 6); *o++ = 0x80 | (c & 0x3F); }
		else if (c < 0x10000) { *o++ = 0xE0 | (c >> 12); *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F); }
		else { *o++ = 0xF0 | (c >> 18); *o++ = 0x80 | ((c >> 12) & 0x3F); *o++ = 0x80 | ((c >> 6) & 0x3F); *o++ = 0x80 | (c & 0x3F); }
	}
	*o = 0;
	return out;
}

typedef struct {
	char *s;
	size_t n, cap;
} buf;

static void bput(buf *b, const char *s) {
	size_t l = strlen(s);
	if (b->n + l + 1 > b->cap) {
		b->cap = (b->n + l + 1) * 2;
		b->s = realloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, l + 1);
	b->n += l;
}

// ---- metadata calls
#define NAMELEN 1024

// generic_params appends "<T,U>" with the last `last` generic parameters of
// token tk (a type's list repeats its enclosing types' parameters first).
static void generic_params(IUnknown *md, mdToken tk, int last, buf *b) {
	HCORENUM e = 0;
	mdToken ps[64];
	ULONG n = 0;
	HRESULT hr = VCALL(md, MD_EnumGenericParams, EnumGenericParams_t)(md, &e, tk, ps, 64, &n);
	if (e) VCALL(md, MD_CloseEnum, CloseEnum_t)(md, e);
	if (FAILED(hr) || n == 0) return;
	int from = (last >= 0 && (ULONG)last < n) ? (int)n - last : 0;
	bput(b, "<");
	for (int i = from; i < (int)n; i++) {
		WCHAR w[NAMELEN];
		ULONG l = 0;
		if (i > from) bput(b, ",");
		if (!FAILED(VCALL(md, MD_GetGenericParamProps, GetGenericParamProps_t)(md, ps[i], 0, 0, 0, 0, w, NAMELEN, &l))) {
			char *s = utf8(w, l);
			bput(b, s ? s : "?");
			free(s);
		} else
			bput(b, "?");
	}
	bput(b, ">");
}

// type_name appends the namespace-qualified name of type td: enclosing types
// first, joined with '.', generic arity suffixes (`1) replaced by <T> lists
// when with_generics, dropped otherwise.
static void type_name(IUnknown *md, mdToken td, buf *b, int with_generics, int depth) {
	mdToken outer = 0;
	if (depth < 32 && VCALL(md, MD_GetNestedClassProps, GetNestedClassProps_t)(md, td, &outer) == S_OK && outer) {
		type_name(md, outer, b, with_generics, depth + 1);
		bput(b, ".");
	}
	WCHAR w[NAMELEN];
	ULONG l = 0;
	if (FAILED(VCALL(md, MD_GetTypeDefProps, GetTypeDefProps_t)(md, td, w, NAMELEN, &l, 0, 0))) {
		bput(b, "?");
		return;
	}
	char *s = utf8(w, l);
	if (!s) return;
	char *tick = strrchr(s, '`');
	int arity = -1;
	if (tick) {
		arity = atoi(tick + 1);
		*tick = 0;
	}
	bput(b, s);
	free(s);
	if (with_generics && arity > 0) generic_params(md, td, arity, b);
}

static module *module_for(ModuleID mid) {
	module *m = map_get(&modules, mid);
	if (m) return m;
	m = calloc(1, sizeof(module));
	WCHAR w[NAMELEN];
	ULONG l = 0;
	AssemblyID aid = 0;
	const uint8_t *base = 0;
	if (!FAILED(VCALL(vb_info, INFO_GetModuleInfo, GetModuleInfo_t)(vb_info, mid, &base, NAMELEN, &l, w, &aid))) {
		char *path = utf8(w, l);
		char *slash = path ? strrchr(path, '/') : 0;
		m->file = strdup(slash ? slash + 1 : (path ? path : "?"));
		m->path = path;
		AppDomainID ad;
		ModuleID mm;
		l = 0;
		if (aid && !FAILED(VCALL(vb_info, INFO_GetAssemblyInfo, GetAssemblyInfo_t)(vb_info, aid, NAMELEN, &l, w, &ad, &mm)))
			m->assembly = utf8(w, l);
	}
	if (!m->file) m->file = strdup("?");
	if (!m->assembly) m->assembly = strdup("?");
	if (!m->path) m->path = strdup("");
	m->framework = -1;
	map_put(&modules, mid, m);
	return m;
}

// vb_class_name writes the namespace-qualified name of class cls (a crash's
// exception) into out. It takes no lock of ours: the crash writer calls it
// while the crashed thread may hold one.
int vb_class_name(ClassID cls, char *out, size_t n) {
	ModuleID mid = 0;
	mdToken td = 0;
	if (FAILED(VCALL(vb_info, INFO_GetClassIDInfo2, GetClassIDInfo2_t)(vb_info, cls, &mid, &td, 0, 0, 0, 0)) || !mid || !td) return -1;
	IUnknown *md = 0;
	if (FAILED(VCALL(vb_info, INFO_GetModuleMetaData, GetModuleMetaData_t)(vb_info, mid, ofRead, &IID_IMetaDataImport2_, &md)) || !md) return -1;
	buf b = {0};
	type_name(md, td, &b, 1, 0);
	VCALL(md, UNK_Release, Release_t)(md);
	if (!b.s) return -1;
	snprintf(out, n, "%s", b.s);
	free(b.s);
	return 0;
}

// il_size reads the IL method header: tiny (2 low bits 10: size in the upper
// 6 bits) or fat (11: size in the 32-bit word at offset 4).
static uint32_t il_size(ModuleID mid, mdToken tok) {
	const uint8_t *h = 0;
	ULONG n = 0;
	if (FAILED(VCALL(vb_info, INFO_GetILFunctionBody, GetILFunctionBody_t)(vb_info, mid, tok, &h, &n)) || !h) return 0;
	if ((h[0] & 3) == 2) return h[0] >> 2;
	if ((h[0] & 3) == 3 && n >= 8) return (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
	return 0;
}

static vb_fn *resolve_method(ModuleID mid, mdToken tok, IUnknown *md);

static vb_fn *resolve(FunctionID fid) {
	ClassID cls = 0;
	ModuleID mid = 0;
	mdToken tok = 0;
	if (FAILED(VCALL(vb_info, INFO_GetFunctionInfo, GetFunctionInfo_t)(vb_info, fid, &cls, &mid, &tok)) || !mid || !tok) {
		vb_fn *f = calloc(1, sizeof(vb_fn));
		char tmp[64];
		snprintf(tmp, sizeof tmp, "<dynamic 0x%lx>", (unsigned long)fid);
		f->name = strdup(tmp);
		f->module = strdup("?");
		f->assembly = strdup("?");
		f->type_name = strdup("");
		return fn_append(f);
	}
	IUnknown *md = 0;
	mdToken t2 = 0;
	if (FAILED(VCALL(vb_info, INFO_GetTokenAndMetaDataFromFunction, GetTokenAndMetaData_t)(vb_info, fid, &IID_IMetaDataImport2_, &md, &t2))) md = 0;
	vb_fn *f = resolve_method(mid, tok, md);
	if (md) VCALL(md, UNK_Release, Release_t)(md);
	return f;
}

// resolve_method finds or makes the record of method tok of module mid,
// naming it through md (the module's metadata; NULL: name unknown).
static vb_fn *resolve_method(ModuleID mid, mdToken tok, IUnknown *md) {
	uintptr_t key = mid * 31 + tok; // collisions are checked exactly below
	vb_fn *found = map_get(&by_method, key);
	if (found && found->module_id == mid && found->token == tok) return found;

	module *m = module_for(mid);
	buf name = {0}, tname = {0};
	if (md) {
		mdToken td = 0;
		WCHAR w[NAMELEN];
		ULONG l = 0;
		HRESULT hr = VCALL(md, MD_GetMethodProps, GetMethodProps_t)(md, tok, &td, w, NAMELEN, &l, 0, 0, 0, 0, 0);
		if (!FAILED(hr)) {
			if (td && (td & 0x00ffffff) != 1) { // 0x02000001 is <Module>, the global type
				type_name(md, td, &name, 1, 0);
				type_name(md, td, &tname, 0, 0);
				bput(&name, ".");
			}
			char *s = utf8(w, l);
			bput(&name, s ? s : "?");
			free(s);
			generic_params(md, tok, -1, &name);
		}
	}
	vb_fn *f = calloc(1, sizeof(vb_fn));
	f->module_id = mid;
	f->token = tok;
	f->name = name.s ? name.s : strdup("?");
	f->type_name = tname.s ? tname.s : strdup("");
	f->module = m->file;
	f->module_path = m->path;
	f->assembly = m->assembly;
	f->user = (uint8_t)vb_filter_user(f->assembly, f->type_name);
	f->il_size = il_size(mid, tok);
	if (!fn_append(f)) return 0;
	if (!found) map_put(&by_method, key, f); // on a (rare) key collision the first record keeps the slot
	return f;
}

// vb_fn_for_method is vb_fn_for_function for a method known by its module
// and MethodDef token (the instrumentation engine's callee scan).
vb_fn *vb_fn_for_method(ModuleID mid, mdToken tok, IUnknown *md) {
	pthread_mutex_lock(&mu);
	vb_fn *f = resolve_method(mid, tok, md);
	pthread_mutex_unlock(&mu);
	return f;
}

vb_fn *vb_fn_for_function(FunctionID fid) {
	pthread_mutex_lock(&mu);
	vb_fn *f = map_get(&by_fid, fid);
	if (!f) {
		f = resolve(fid);
		if (f) map_put(&by_fid, fid, f);
	}
	pthread_mutex_unlock(&mu);
	return f;
}

static int framework_assembly(const char *assembly);
static int no_includes(void);

// vb_fn_user_quick answers the filter for fid. Without include patterns a
// function of a framework assembly is never selected, whatever its type:
// that is decided from its module alone, without resolving its name (the
// precompiled-code and inlining callbacks ask for every framework method).
int vb_fn_user_quick(FunctionID fid) {
	if (no_includes()) {
		ClassID cls = 0;
		ModuleID mid = 0;
		mdToken tok = 0;
		if (!FAILED(VCALL(vb_info, INFO_GetFunctionInfo, GetFunctionInfo_t)(vb_info, fid, &cls, &mid, &tok)) && mid) {
			pthread_mutex_lock(&mu);
			module *m = module_for(mid);
			if (m->framework < 0) m->framework = (int8_t)framework_assembly(m->assembly);
			int fw = m->framework;
			pthread_mutex_unlock(&mu);
			if (fw) return 0;
		}
	}
	vb_fn *f = vb_fn_for_function(fid);
	return f && f->user;
}

// vb_module_selectable: whether any method of module mid can pass the
// filter (false only for framework assemblies without include patterns).
int vb_module_selectable(ModuleID mid) {
	if (!no_includes()) return 1;
	pthread_mutex_lock(&mu);
	module *m = module_for(mid);
	if (m->framework < 0) m->framework = (int8_t)framework_assembly(m->assembly);
	int fw = m->framework;
	pthread_mutex_unlock(&mu);
	return !fw;
}

vb_fn *vb_fn_lookup(FunctionID fid) {
	pthread_mutex_lock(&mu);
	vb_fn *f = map_get(&by_fid, fid);
	pthread_mutex_unlock(&mu);
	return f;
}

// ---- the filter (semantics documented in doc.go and docs/profiler.md)
typedef struct {
	char **p;
	int n;
} patterns;
static patterns include, exclude;
// VbenchStartupHook is vbench's own startup hook (runner/startuphook), which
// the harness adds to every run: never the program's code.
static const char *default_excluded[] = {"System", "System.*", "Microsoft.*", "mscorlib", "netstandard", "Internal.*",
	"Windows.*", "<*", "VbenchStartupHook", 0};

static void split(const char *s, patterns *ps) {
	ps->n = 0;
	if (!s || !*s) return;
	char *dup = strdup(s), *save = 0;
	ps->p = calloc(strlen(s) + 1, sizeof(char *));
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(0, ",", &save)) {
		while (*tok == ' ') tok++;
		char *e = tok + strlen(tok);
		while (e > tok && e[-1] == ' ') *--e = 0;
		if (*tok) ps->p[ps->n++] = strdup(tok);
	}
	free(dup);
}

void vb_filter_set(const char *inc, const char *exc) {
	split(inc, &include);
	split(exc, &exclude);
}

// glob matches s against p, where '*' matches any run of characters.
static int glob(const char *p, const char *s) {
	const char *star = 0, *ss = 0;
	while (*s) {
		if (*p == '*') { star = p++; ss = s; }
		else if (*p == *s) { p++; s++; }
		else if (star) { p = star + 1; s = ++ss; }
		else return 0;
	}
	while (*p == '*') p++;
	return *p == 0;
}

// match: the pattern names the assembly, or the type, or a namespace prefix
// of the type (pattern "Ns" matches type "Ns.Sub.T").
static int match(const char *pat, const char *assembly, const char *type) {
	if (glob(pat, assembly) || glob(pat, type)) return 1;
	size_t l = strlen(pat);
	return strchr(pat, '*') == 0 && strncmp(type, pat, l) == 0 && type[l] == '.';
}

static int any(patterns *ps, const char *assembly, const char *type) {
	for (int i = 0; i < ps->n; i++)
		if (match(ps->p[i], assembly, type)) return 1;
	return 0;
}

static int no_includes(void) { return include.n == 0; }

static int framework_assembly(const char *assembly) {
	for (const char **d = default_excluded; *d; d++)
		if (glob(*d, assembly)) return 1;
	return 0;
}

int vb_filter_user(const char *assembly, const char *type) {
	if (any(&exclude, assembly, type)) return 0;
	if (any(&include, assembly, type)) return 1;
	for (const char **d = default_excluded; *d; d++)
		if (glob(*d, assembly) || glob(*d, type)) return 0;
	return 1;
}
