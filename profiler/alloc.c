// The allocation engines' tables (VBENCH_MODE=allocations and
// allocation-sampling): per thread, every distinct (type, call path) an
// object was allocated from, with its count and bytes. The allocations
// engine feeds them from the runtime's ObjectAllocated callback, once per
// object; allocation-sampling from the AllocationSampled events it
// receives (allocsample.c), each weighed by the design's upscaling.
//
// The path is taken where the allocation is reported, on the allocating
// thread: a walk of the frame-pointer chain from the callback's own frame
// (libcoreclr keeps frame pointers, and so does the JIT's code for all but
// small leaf methods, see sampling.c), up to VB_ALLOC_DEPTH return
// addresses, checked against the thread's stack. The callback resolves
// nothing: the IPs are stored raw and resolved once each (GetFunctionFromIP)
// when the profile is written (vb_alloc_resolve). Native frames (the
// runtime's allocation path) resolve to no method and are dropped then.
//
// The callback's path allocates nothing, takes no lock and makes no
// system call, but the first time on a thread (its table: a slice of one
// region reserved at Initialize, by an atomic add; its stack range, read
// with pthread_getattr_np). A thread's table is written by that thread
// only; entries are published with a release store of their type, so the
// writer can read tables while threads still run.
//
// Bounds: VB_ALLOC_THREADS tables of VB_ALLOC_SITES entries and
// VB_ALLOC_FRAMES stored frames each. What no longer fits (a full table, a
// thread beyond the last table) is folded by type alone into one shared
// table (atomic adds), and the profile says how many objects were folded.
#define _GNU_SOURCE
#include <link.h>
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fpwalk.h"
#include "vb.h"

vb_atab *vb_atabs;            // every thread's table, newest first
vb_afold vb_afolds[VB_ALLOC_FOLDS];
uint64_t vb_alloc_folded, vb_alloc_fold_lost, vb_alloc_samples, vb_alloc_objects, vb_alloc_walk_short;
static char *region;
static uint32_t ntabs;
static size_t tab_bytes;
static __thread vb_atab *my_tab __attribute__((tls_model("initial-exec")));
static __thread int my_state __attribute__((tls_model("initial-exec"))); // 0 new, 1 has a table, 2 none (fold)

static int find_coreclr(struct dl_phdr_info *info, size_t size, void *data);

#define SITES_OFF (sizeof(vb_atab) + 63) / 64 * 64

int vb_alloc_init(void) {
	if (region) return 0; // reserved by an earlier attach
	dl_iterate_phdr(find_coreclr, 0);
	tab_bytes = SITES_OFF + sizeof(vb_asite) * VB_ALLOC_SITES + sizeof(uintptr_t) * VB_ALLOC_FRAMES;
	tab_bytes = (tab_bytes + 4095) & ~(size_t)4095;
	void *p = mmap(0, tab_bytes * VB_ALLOC_THREADS, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) return -1;
	region = p;
	return 0;
}

// new_tab gives the calling thread its table (the slow path, once).
static vb_atab *new_tab(void) {
	uint32_t i = __atomic_fetch_add(&ntabs, 1, __ATOMIC_RELAXED);
	if (i >= VB_ALLOC_THREADS || !region) return 0;
	vb_atab *t = (vb_atab *)(region + tab_bytes * i);
	t->sites = (vb_asite *)((char *)t + SITES_OFF);
	t->frames = (uintptr_t *)(t->sites + VB_ALLOC_SITES);
	t->tid = (int32_t)syscall(SYS_gettid);
	pthread_attr_t a;
	void *base;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &base, &size) == 0) t->lo = (uintptr_t)base, t->hi = (uintptr_t)base + size;
		pthread_attr_destroy(&a);
	}
	if (vb_tl_on) {
		void *ev = mmap(0, vb_tl_cap * sizeof(vb_aev), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (ev != MAP_FAILED) t->ev = ev;
	}
	vb_atab *head = __atomic_load_n(&vb_atabs, __ATOMIC_RELAXED);
	do t->next = head;
	while (!__atomic_compare_exchange_n(&vb_atabs, &head, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	return t;
}

// fold counts an object by its type alone (shared table, atomic adds).
static void fold(ClassID cls, uint64_t count, uint64_t bytes, double ecount, double ebytes) {
	__atomic_fetch_add(&vb_alloc_folded, count, __ATOMIC_RELAXED);
	uint32_t i = (uint32_t)((cls >> 3) * 0x9E3779B1u) & (VB_ALLOC_FOLDS - 1);
	for (int probe = 0; probe < 64; probe++, i = (i + 1) & (VB_ALLOC_FOLDS - 1)) {
		vb_afold *f = &vb_afolds[i];
		ClassID c = __atomic_load_n(&f->cls, __ATOMIC_ACQUIRE);
		if (c == 0) {
			ClassID zero = 0;
			if (!__atomic_compare_exchange_n(&f->cls, &zero, cls, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) && zero != cls) continue;
			c = cls;
		}
		if (c != cls) continue;
		__atomic_fetch_add(&f->count, count, __ATOMIC_RELAXED);
		__atomic_fetch_add(&f->bytes, bytes, __ATOMIC_RELAXED);
		// Estimates (allocation-sampling) in fixed point: 1/1024 of a unit.
		__atomic_fetch_add(&f->ecount_fx, (uint64_t)(ecount * 1024), __ATOMIC_RELAXED);
		__atomic_fetch_add(&f->ebytes_fx, (uint64_t)(ebytes * 1024), __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&vb_alloc_fold_lost, count, __ATOMIC_RELAXED);
}

// libcoreclr's mapped range (vb_alloc_init), to tell the runtime's own
// frames from managed ones during a walk.
static uintptr_t clr_lo, clr_hi;

static int find_coreclr(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size, (void)data;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libcoreclr.so")) return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD) continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		if (!clr_lo || a < clr_lo) clr_lo = a;
		if (b > clr_hi) clr_hi = b;
	}
	return 1;
}

static inline int in_clr(uintptr_t ip) { return ip >= clr_lo && ip < clr_hi; }

// hidden finds the return address into the allocating method that the
// runtime's allocation stub (libcoreclr assembly) pushed with a copy of the
// method's frame pointer, between the record at bp (the libcoreclr frame
// the stub called, which saved the method's frame pointer, not the stub's)
// and the managed frame record at next: a word equal to next followed by a
// word that is no libcoreclr or stack address. Without it the walk goes
// from the stub's callee straight to the allocating method's caller (the
// method's own frame record holds its caller's return address). 0: none.
static uintptr_t hidden(uintptr_t bp, uintptr_t next, uintptr_t lo, uintptr_t hi) {
	uintptr_t end = next - 8;
	if (end > bp + 16 + 8 * 64) end = bp + 16 + 8 * 64;
	for (uintptr_t a = bp + 16; a < end; a += 8) {
		if (*(uintptr_t *)a != next) continue;
		uintptr_t w = ((uintptr_t *)a)[1];
		if (w && !in_clr(w) && !(w >= lo && w < hi)) return w;
	}
	return 0;
}

// An OSR method's frame record skips its Tier0 frame (see fpwalk.h), whose
// return address the walk stores after the stale one, tagged, and
// vb_alloc_resolve puts in the stale one's place when that names the
// method of the frame below. The walk saw "MakeLines <- MakeLines" and lost
// Main.
#define OSR_TAG ((uintptr_t)1 << 63) // no user-space address has it

// walk stores the return addresses of the frame-pointer chain from frame
// bp (leaf first) into ips, at most max; *rooted: the chain ended before max
// (at a zero frame pointer, or one that is no frame of this stack: the
// native frames below main and a thread's start keep none), else the
// path was cut at max frames and its root-most frames are unknown. A
// managed frame record may add an OSR frame's hidden caller, tagged.
static uint32_t walk(uintptr_t bp, uintptr_t lo, uintptr_t hi, uintptr_t *ips, uint32_t max, int *rooted) {
	uint32_t n = 0;
	vb_fpwalk w = {.lo = lo, .hi = hi, .floor = bp, .bp = bp};
	int stub = 1; // still in the runtime's frames above the first managed one
	while (n < max && vb_fp_next(&w) == VB_FP_FRAME) {
		ips[n++] = w.ret;
		uintptr_t c, next = w.bp;
		if (!stub && n < max && vb_fp_osr_caller(&w, &c) && c && !(c & OSR_TAG)) ips[n++] = c | OSR_TAG;
		if (stub && in_clr(w.ret) && next > w.rec + 16 && next < hi - 16 && !(next & 7)) {
			uintptr_t mret = ((uintptr_t *)next)[1];
			if (mret && !in_clr(mret)) {
				stub = 0;
				uintptr_t h = hidden(w.rec, next, lo, hi);
				if (h && n < max) ips[n++] = h;
			}
		}
	}
	*rooted = n < max || w.bp == 0;
	return n;
}

static inline uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x9E3779B97F4A7C15ull; }

// record adds count objects of type cls and bytes bytes (estimates ecount,
// ebytes) at the path ips[0..n) (leaf first) to the calling thread's table;
// returns the site, VB_ASITE_NONE when folded.
static uint32_t record(vb_atab *t, ClassID cls, const uintptr_t *ips, uint32_t n, int rooted, uint64_t count, uint64_t bytes, double ecount, double ebytes) {
	uint64_t h = mix(0x5643, cls);
	for (uint32_t k = 0; k < n; k++) h = mix(h, ips[k]);
	h = mix(h, n | (uint64_t)rooted << 32);
	uint32_t i = (uint32_t)(h >> 20) & (VB_ALLOC_SITES - 1);
	for (int probe = 0; probe < 32; probe++, i = (i + 1) & (VB_ALLOC_SITES - 1)) {
		vb_asite *s = &t->sites[i];
		if (s->cls == 0) {
			if (t->used >= VB_ALLOC_SITES / 4 * 3 || t->nframes + n > VB_ALLOC_FRAMES) break;
			memcpy(t->frames + t->nframes, ips, n * sizeof *ips);
			s->hash = h;
			s->off = t->nframes;
			s->n = (uint16_t)n;
			s->rooted = (uint16_t)rooted;
			s->count = count, s->bytes = bytes, s->ecount = ecount, s->ebytes = ebytes;
			t->nframes += n;
			t->used++;
			__atomic_store_n(&s->cls, cls, __ATOMIC_RELEASE);
			return i;
		}
		if (s->hash != h || s->cls != cls || s->n != n || s->rooted != rooted || memcmp(t->frames + s->off, ips, n * sizeof *ips) != 0) continue;
		s->count += count, s->bytes += bytes, s->ecount += ecount, s->ebytes += ebytes;
		return i;
	}
	fold(cls, count, bytes, ecount, ebytes);
	return VB_ASITE_NONE;
}

// timeline_note appends one allocation to the thread's timeline: its own
// buffer, the cap taken VB_TL_BLOCK events at a time (no lock, no call).
static void timeline_note(vb_atab *t, ClassID cls, uint64_t bytes, uint32_t site) {
	uint64_t i = t->nev;
	if (i == t->budget) {
		int64_t old = __atomic_fetch_sub(&vb_tl_left, VB_TL_BLOCK, __ATOMIC_RELAXED);
		if (old > 0) t->budget += old < VB_TL_BLOCK ? (uint64_t)old : VB_TL_BLOCK;
		if (i == t->budget) {
			t->dropped++;
			return;
		}
	}
	vb_aev *e = &t->ev[i];
	e->ts = vb_rdtsc();
	e->bytes = bytes;
	e->cls = cls;
	e->site = site;
	__atomic_store_n(&t->nev, i + 1, __ATOMIC_RELEASE);
}

static inline vb_atab *tab(void) {
	if (__builtin_expect(my_state == 1, 1)) return my_tab;
	if (my_state == 2) return 0;
	my_tab = new_tab();
	my_state = my_tab ? 1 : 2;
	return my_tab;
}

// vb_alloc_note records one object (or one sample) from inside a runtime
// callback on the allocating thread. stack/nstack: the runtime's own walk
// (EventPipe's), leaf first; else (nstack 0) the frame-pointer chain from
// the caller's frame.
void vb_alloc_note(uintptr_t bp, ClassID cls, uint64_t count, uint64_t bytes, double ecount, double ebytes, const uintptr_t *stack, uint32_t nstack) {
	vb_atab *t = tab();
	if (!t) {
		fold(cls, count, bytes, ecount, ebytes);
		return;
	}
	uintptr_t ips[VB_ALLOC_DEPTH];
	uint32_t n;
	int rooted = 1;
	if (nstack > 0) {
		n = nstack < VB_ALLOC_DEPTH ? nstack : VB_ALLOC_DEPTH;
		rooted = nstack <= VB_ALLOC_DEPTH;
		memcpy(ips, stack, n * sizeof *ips);
	} else {
		n = walk(bp, t->lo, t->hi, ips, VB_ALLOC_DEPTH, &rooted);
	}
	if (!rooted) __atomic_fetch_add(&vb_alloc_walk_short, 1, __ATOMIC_RELAXED);
	uint32_t site = record(t, cls, ips, n, rooted, count, bytes, ecount, ebytes);
	if (t->ev) timeline_note(t, cls, bytes, site);
}

// ---- ObjectAllocated (the allocations engine): every object, exactly.
HRESULT vb_object_allocated(void *self, ObjectID obj, ClassID cls) {
	(void)self;
	size_t size = 0;
	VCALL(vb_info, INFO_GetObjectSize2, GetObjectSize2_t)(vb_info, obj, &size);
	__atomic_fetch_add(&vb_alloc_objects, 1, __ATOMIC_RELAXED);
	vb_alloc_note((uintptr_t)__builtin_frame_address(0), cls, 1, size, 1, (double)size, 0, 0);
	return S_OK;
}

// ---- at the write: resolve each stored IP once.

// An IP -> method cache (open addressing), made at the write.
typedef struct {
	uintptr_t ip;
	vb_fn *fn;
} ipent;
static ipent *ipcache;
static size_t ipcap;

static vb_fn *resolve_ip(uintptr_t ip) {
	size_t i = (size_t)(mix(0, ip) >> 24) & (ipcap - 1);
	for (;; i = (i + 1) & (ipcap - 1)) {
		if (ipcache[i].ip == ip) return ipcache[i].fn;
		if (ipcache[i].ip == 0) break;
	}
	FunctionID f = 0;
	// A return address: the call it follows is the byte before.
	vb_fn *fn = 0;
	if (!FAILED(VCALL(vb_info, INFO_GetFunctionFromIP, GetFunctionFromIP_t)(vb_info, (const uint8_t *)(ip - 1), &f)) && f) fn = vb_fn_for_function(f);
	ipcache[i].ip = ip;
	ipcache[i].fn = fn;
	return fn;
}

// osr_fix resolves a path's tagged OSR callers (see OSR_TAG): one replaces
// the frame before it when that frame names the same method as the frame
// below it (the OSR frame's stale word of its Tier0 frame); a tagged entry
// is never a frame of its own.
static void osr_fix(const uintptr_t *frames, vb_fn **fns, uint32_t n) {
	for (uint32_t k = 1; k < n; k++) {
		if (!(frames[k] & OSR_TAG)) continue;
		vb_fn *below = 0;
		for (uint32_t j = k - 1; j-- > 0;)
			if (fns[j]) {
				below = fns[j];
				break;
			}
		if (fns[k - 1] && fns[k - 1] == below) fns[k - 1] = resolve_ip(frames[k] & ~OSR_TAG);
	}
}

// vb_alloc_resolve fills each table's fns (parallel to frames) with the
// method of each stored IP (NULL: none, native code). Called once, before
// the Go writer reads the tables, outside any runtime callback.
void vb_alloc_resolve(void) {
	size_t total = 0;
	for (vb_atab *t = __atomic_load_n(&vb_atabs, __ATOMIC_ACQUIRE); t; t = t->next) total += t->nframes;
	ipcap = 1024;
	while (ipcap < total * 2) ipcap <<= 1;
	ipcache = calloc(ipcap, sizeof *ipcache);
	if (!ipcache) return;
	for (vb_atab *t = __atomic_load_n(&vb_atabs, __ATOMIC_ACQUIRE); t; t = t->next) {
		uint32_t n = __atomic_load_n(&t->nframes, __ATOMIC_ACQUIRE);
		t->fns = calloc(n + 1, sizeof *t->fns);
		if (!t->fns) continue;
		for (uint32_t k = 0; k < n; k++) t->fns[k] = t->frames[k] & OSR_TAG ? 0 : resolve_ip(t->frames[k]);
		for (uint32_t i = 0; i < VB_ALLOC_SITES; i++) {
			vb_asite *s = &t->sites[i];
			if (__atomic_load_n(&s->cls, __ATOMIC_ACQUIRE) && s->off + s->n <= n) osr_fix(t->frames + s->off, t->fns + s->off, s->n);
		}
		t->nresolved = n;
	}
	free(ipcache);
	ipcache = 0;
}

// vb_alloc_memory is what the tables hold in use, bytes: the profiler's own
// memory for this engine.
uint64_t vb_alloc_memory(void) {
	uint64_t b = sizeof vb_afolds;
	for (vb_atab *t = __atomic_load_n(&vb_atabs, __ATOMIC_ACQUIRE); t; t = t->next)
		b += SITES_OFF + (uint64_t)t->used * sizeof(vb_asite) + (uint64_t)t->nframes * sizeof(uintptr_t);
	return b;
}

// vb_type_name writes type cls's name: Namespace.Type, an array as its
// element type's name with [] (or [,] by rank). 0 on success.
int vb_type_name(ClassID cls, char *out, size_t n) {
	uint32_t elem = 0;
	ClassID base = 0;
	ULONG rank = 0;
	HRESULT hr = VCALL(vb_info, INFO_IsArrayClass, IsArrayClass_t)(vb_info, cls, &elem, &base, &rank);
	if (hr != S_OK) return vb_class_name(cls, out, n);
	static const char *prim[] = {
		[0x2] = "System.Boolean", [0x3] = "System.Char", [0x4] = "System.SByte", [0x5] = "System.Byte",
		[0x6] = "System.Int16", [0x7] = "System.UInt16", [0x8] = "System.Int32", [0x9] = "System.UInt32",
		[0xa] = "System.Int64", [0xb] = "System.UInt64", [0xc] = "System.Single", [0xd] = "System.Double",
		[0xe] = "System.String", [0x18] = "System.IntPtr", [0x19] = "System.UIntPtr", [0x1c] = "System.Object",
	};
	char el[512];
	if (elem < sizeof prim / sizeof *prim && prim[elem])
		snprintf(el, sizeof el, "%s", prim[elem]);
	else if (!base || vb_type_name(base, el, sizeof el) != 0)
		return -1;
	char dims[40] = "[";
	for (ULONG r = 1; r < rank && r < 32; r++) strcat(dims, ",");
	strcat(dims, "]");
	snprintf(out, n, "%s%s", el, dims);
	return 0;
}

// The upscaling of one AllocationSampled event (RandomizedAllocationSampling.md,
// "Estimation Approach 1: Weighted samples"): each byte is a Bernoulli trial
// with p = 1/102400, an object of size s is sampled with probability
// 1 - q^s, so it stands for s / (1 - q^s) bytes and 1 / (1 - q^s) objects.
double vb_alloc_sample_weight(uint64_t size) {
	if (size == 0) return 1;
	double pr = -expm1((double)size * log1p(-1.0 / 102400.0)); // 1 - q^size
	return 1.0 / pr;
}
