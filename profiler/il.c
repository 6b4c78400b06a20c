// IL method bodies: decode (header, instructions, exception clauses) and
// rewrite with the instrumentation engine's counting calls. See il.h;
// signature blobs are ilsig.c's. Cold code: it runs in the JIT callbacks,
// once per instrumented method.
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "il.h"
#include "ilsig.h"
#include "vb.h"

// ---- the instruction set (ECMA-335 III): operand kind of every opcode
static uint8_t kind1[256], kind2[32];

__attribute__((constructor)) static void init_opcodes(void) {
	for (int i = 0; i < 256; i++) kind1[i] = IL_BAD;
	for (int i = 0; i < 32; i++) kind2[i] = IL_BAD;
	for (int i = 0x00; i <= 0x0D; i++) kind1[i] = IL_NONE; // nop .. stloc.3
	for (int i = 0x0E; i <= 0x13; i++) kind1[i] = IL_U8;   // ldarg.s .. stloc.s
	for (int i = 0x14; i <= 0x1E; i++) kind1[i] = IL_NONE; // ldnull, ldc.i4.m1 .. ldc.i4.8
	kind1[0x1F] = IL_U8;                                   // ldc.i4.s
	kind1[0x20] = IL_I32;                                  // ldc.i4
	kind1[0x21] = IL_I64;                                  // ldc.i8
	kind1[0x22] = IL_I32;                                  // ldc.r4
	kind1[0x23] = IL_I64;                                  // ldc.r8
	kind1[0x25] = kind1[0x26] = IL_NONE;                   // dup, pop
	kind1[0x27] = kind1[0x28] = kind1[0x29] = IL_I32;      // jmp, call, calli
	kind1[0x2A] = IL_NONE;                                 // ret
	for (int i = 0x2B; i <= 0x37; i++) kind1[i] = IL_BR8;  // br.s .. blt.un.s
	for (int i = 0x38; i <= 0x44; i++) kind1[i] = IL_BR32; // br .. blt.un
	kind1[0x45] = IL_SWITCH;
	for (int i = 0x46; i <= 0x6E; i++) kind1[i] = IL_NONE; // ldind.*, stind.*, arithmetic, conv.*
	for (int i = 0x6F; i <= 0x75; i++) kind1[i] = IL_I32;  // callvirt, cpobj, ldobj, ldstr, newobj, castclass, isinst
	kind1[0x76] = IL_NONE;                                 // conv.r.un
	kind1[0x79] = IL_I32;                                  // unbox
	kind1[0x7A] = IL_NONE;                                 // throw
	for (int i = 0x7B; i <= 0x81; i++) kind1[i] = IL_I32;  // ldfld .. stobj
	for (int i = 0x82; i <= 0x8B; i++) kind1[i] = IL_NONE; // conv.ovf.*.un
	kind1[0x8C] = kind1[0x8D] = IL_I32;                    // box, newarr
	kind1[0x8E] = IL_NONE;                                 // ldlen
	kind1[0x8F] = IL_I32;                                  // ldelema
	for (int i = 0x90; i <= 0xA2; i++) kind1[i] = IL_NONE; // ldelem.*, stelem.*
	kind1[0xA3] = kind1[0xA4] = kind1[0xA5] = IL_I32;      // ldelem, stelem, unbox.any
	for (int i = 0xB3; i <= 0xBA; i++) kind1[i] = IL_NONE; // conv.ovf.*
	kind1[0xC2] = IL_I32;                                  // refanyval
	kind1[0xC3] = IL_NONE;                                 // ckfinite
	kind1[0xC6] = IL_I32;                                  // mkrefany
	kind1[0xD0] = IL_I32;                                  // ldtoken
	for (int i = 0xD1; i <= 0xDC; i++) kind1[i] = IL_NONE; // conv.u2 .. sub.ovf.un, endfinally
	kind1[0xDD] = IL_BR32;                                 // leave
	kind1[0xDE] = IL_BR8;                                  // leave.s
	kind1[0xDF] = kind1[0xE0] = IL_NONE;                   // stind.i, conv.u

	for (int i = 0x00; i <= 0x05; i++) kind2[i] = IL_NONE; // arglist, ceq, cgt, cgt.un, clt, clt.un
	kind2[0x06] = kind2[0x07] = IL_I32;                    // ldftn, ldvirtftn
	for (int i = 0x09; i <= 0x0E; i++) kind2[i] = IL_U16;  // ldarg .. stloc
	kind2[0x0F] = IL_NONE;                                 // localloc
	kind2[0x11] = IL_NONE;                                 // endfilter
	kind2[0x12] = IL_U8;                                   // unaligned.
	kind2[0x13] = kind2[0x14] = IL_NONE;                   // volatile., tail.
	kind2[0x15] = kind2[0x16] = IL_I32;                    // initobj, constrained.
	kind2[0x17] = kind2[0x18] = IL_NONE;                   // cpblk, initblk
	kind2[0x19] = IL_U8;                                   // no.
	kind2[0x1A] = IL_NONE;                                 // rethrow
	kind2[0x1C] = IL_I32;                                  // sizeof
	kind2[0x1D] = kind2[0x1E] = IL_NONE;                   // refanytype, readonly.
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

// ---- decoding

static int decode_sections(const uint8_t *p, const uint8_t *end, vb_il *m, const char **why) {
	for (;;) {
		p = (const uint8_t *)(((uintptr_t)p + 3) & ~(uintptr_t)3);
		if (end && p + 4 > end) {
			*why = "exception sections run past the method body";
			return 0;
		}
		uint8_t kind = p[0];
		int fat = (kind & 0x40) != 0;
		uint32_t size = fat ? (uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 : p[1];
		if (size < 4 || (end && p + size > end)) {
			*why = "malformed exception section";
			return 0;
		}
		if ((kind & 0x3F) == 1) { // EHTable
			uint32_t n = (size - 4) / (fat ? 24 : 12);
			vb_clause *c = realloc(m->clauses, (m->nclauses + n) * sizeof *c);
			if (!c) {
				*why = "out of memory";
				return 0;
			}
			m->clauses = c;
			for (uint32_t i = 0; i < n; i++) {
				const uint8_t *q = p + 4 + i * (fat ? 24 : 12);
				vb_clause *x = &c[m->nclauses++];
				if (fat) {
					x->flags = rd32(q), x->try_off = rd32(q + 4), x->try_len = rd32(q + 8);
					x->h_off = rd32(q + 12), x->h_len = rd32(q + 16), x->extra = rd32(q + 20);
				} else {
					x->flags = rd16(q), x->try_off = rd16(q + 2), x->try_len = q[4];
					x->h_off = rd16(q + 5), x->h_len = q[7], x->extra = rd32(q + 8);
				}
			}
		} else if ((kind & 0x3F) != 2) { // 2: OptILTable, never emitted, ignored by the runtime
			*why = "unknown method data section";
			return 0;
		}
		if (!(kind & 0x80)) return 1;
		p += size;
	}
}

int vb_il_decode(const uint8_t *body, uint32_t size, vb_il *m, const char **why) {
	memset(m, 0, sizeof *m);
	const uint8_t *end = size ? body + size : 0;
	uint8_t more = 0;
	if ((body[0] & 3) == 2) { // tiny: code size in the upper six bits, max stack 8
		m->code_size = body[0] >> 2;
		m->code = body + 1;
		m->max_stack = 8;
	} else if ((body[0] & 3) == 3) {
		uint32_t hsize = (uint32_t)(body[1] >> 4) * 4;
		if (hsize < 12 || (end && body + hsize > end)) {
			*why = "malformed fat method header";
			return 0;
		}
		m->fat = 1;
		m->flags = rd16(body) & 0x0FFF;
		m->max_stack = rd16(body + 2);
		m->code_size = rd32(body + 4);
		m->local_sig = rd32(body + 8);
		m->code = body + hsize;
		more = (m->flags & 0x08) != 0;
	} else {
		*why = "unknown method header format";
		return 0;
	}
	if (m->code_size == 0 || (end && m->code + m->code_size > end)) {
		*why = "method code is empty or runs past the body";
		return 0;
	}
	if (more && !decode_sections(m->code + m->code_size, end, m, why)) return 0;

	uint32_t cap = 64;
	m->insns = malloc(cap * sizeof *m->insns);
	if (!m->insns) {
		*why = "out of memory";
		return 0;
	}
	const uint8_t *c = m->code;
	uint32_t n = m->code_size, pc = 0;
	while (pc < n) {
		if (m->ninsns == cap) {
			cap *= 2;
			vb_insn *g = realloc(m->insns, cap * sizeof *g);
			if (!g) {
				*why = "out of memory";
				return 0;
			}
			m->insns = g;
		}
		vb_insn *in = &m->insns[m->ninsns++];
		memset(in, 0, sizeof *in);
		in->off = pc;
		uint32_t len = 1;
		if (c[pc] == 0xFE) {
			if (pc + 1 >= n || c[pc + 1] >= 32) {
				*why = "invalid two-byte opcode";
				return 0;
			}
			in->op = 0xFE00 | c[pc + 1];
			in->kind = kind2[c[pc + 1]];
			len = 2;
		} else {
			in->op = c[pc];
			in->kind = kind1[c[pc]];
		}
		const uint8_t *a = c + pc + len;
		uint32_t left = n - pc - len;
		switch (in->kind) {
		case IL_BAD:
			*why = "invalid opcode";
			return 0;
		case IL_NONE:
			break;
		case IL_U8:
			if (left < 1) goto trunc;
			in->arg = a[0];
			len += 1;
			break;
		case IL_U16:
			if (left < 2) goto trunc;
			in->arg = rd16(a);
			len += 2;
			break;
		case IL_I32:
			if (left < 4) goto trunc;
			in->arg = (int32_t)rd32(a);
			len += 4;
			break;
		case IL_I64:
			if (left < 8) goto trunc;
			in->arg = (int64_t)((uint64_t)rd32(a) | (uint64_t)rd32(a + 4) << 32);
			len += 8;
			break;
		case IL_BR8:
			if (left < 1) goto trunc;
			in->arg = (int64_t)pc + len + 1 + (int8_t)a[0];
			len += 1;
			break;
		case IL_BR32:
			if (left < 4) goto trunc;
			in->arg = (int64_t)pc + len + 4 + (int32_t)rd32(a);
			len += 4;
			break;
		case IL_SWITCH: {
			if (left < 4) goto trunc;
			uint32_t k = rd32(a);
			if (k > (left - 4) / 4) goto trunc;
			len += 4 + 4 * k;
			uint32_t *t = realloc(m->targets, (m->ntargets + k + 1) * sizeof *t);
			if (!t) {
				*why = "out of memory";
				return 0;
			}
			m->targets = t;
			in->sw = m->ntargets;
			in->nsw = k;
			for (uint32_t i = 0; i < k; i++)
				t[m->ntargets++] = (uint32_t)((int64_t)pc + len + (int32_t)rd32(a + 4 + 4 * i));
			break;
		}
		}
		in->len = len;
		pc += len;
	}
	return 1;
trunc:
	*why = "instruction operand runs past the code";
	return 0;
}

void vb_il_free(vb_il *m) {
	free(m->insns);
	free(m->targets);
	free(m->clauses);
	memset(m, 0, sizeof *m);
}

// ---- emitting

// The emitted body grows in a vb_bytes buffer.
typedef vb_bytes out;

static void u8(out *o, uint8_t v) { vb_bytes_put(o, &v, 1); }
static void u16(out *o, uint16_t v) { uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)}; vb_bytes_put(o, b, 2); }
static void u32(out *o, uint32_t v) { uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)}; vb_bytes_put(o, b, 4); }
static void u64(out *o, uint64_t v) { u32(o, (uint32_t)v); u32(o, (uint32_t)(v >> 32)); }
static void set32(out *o, uint32_t at, uint32_t v) {
	if (o->oom) return;
	o->b[at] = (uint8_t)v, o->b[at + 1] = (uint8_t)(v >> 8), o->b[at + 2] = (uint8_t)(v >> 16), o->b[at + 3] = (uint8_t)(v >> 24);
}

// A branch operand to fill in once its target's new offset is known:
// either an original code offset or one of the rewriter's own labels.
typedef struct {
	uint32_t at;     // where the int32 goes
	uint32_t base;   // offset of the next instruction (branches are relative to it)
	uint32_t target; // original offset, or a label
	int label;       // 1: target is a label index
} fixup;

typedef struct {
	fixup *f;
	uint32_t n, cap;
	int oom;
} fixups;

static void fix(fixups *fs, uint32_t at, uint32_t base, uint32_t target, int label) {
	if (fs->n == fs->cap) {
		uint32_t cap = fs->cap ? fs->cap * 2 : 32;
		fixup *f = realloc(fs->f, cap * sizeof *f);
		if (!f) {
			fs->oom = 1;
			return;
		}
		fs->f = f, fs->cap = cap;
	}
	fs->f[fs->n++] = (fixup){at, base, target, label};
}

// ldc.i8 v; conv.u: a native int constant (a pointer into the profiler).
static void emit_ptr(out *o, uint64_t v) {
	u8(o, 0x21);
	u64(o, v);
	u8(o, 0xE0);
}

static void emit_calli(out *o, uint64_t target, mdToken sig) {
	emit_ptr(o, target);
	u8(o, OP_CALLI);
	u32(o, sig);
}

static void emit_local(out *o, int store, uint32_t idx);

// Forward branches inside the emitted sequences: br_fwd writes a long
// branch with a placeholder, br_here points it at the current position.
static uint32_t br_fwd(out *o, uint8_t op) {
	u8(o, op);
	u32(o, 0);
	return o->n;
}
static void br_here(out *o, uint32_t after) { set32(o, after - 4, o->n - after); }

// *(native int *)(local + off), as an address (addr) or loaded (ldind)
static void emit_field_addr(out *o, uint32_t local, uint32_t off) {
	emit_local(o, 0, local);
	if (off < 128) {
		u8(o, 0x1F); // ldc.i4.s
		u8(o, (uint8_t)off);
	} else {
		u8(o, 0x20); // ldc.i4
		u32(o, off);
	}
	u8(o, 0x58); // add
}

#define LDIND_I 0x4D
#define LDIND_I8 0x4C
#define STIND_I 0xDF
#define STIND_I8 0x55
#define BRTRUE 0x3A
#define BNE_UN 0x40
#define BEQ 0x3B
#define BRFALSE 0x39

// t = this thread's vb_thread; c = the node of this frame:
//   t = thread_fn(); if (t == 0) goto slow;  (never: it ends the call's block,
//                       so the GC poll the JIT puts after the call comes
//                       before the loads and nothing else lives across it)
//   c = t->active->hint;                 (the child found last: loops, recursion)
//   if (c->fn != fn) {
//       a = t->last; if (a == 0) goto slow;
//       c = a[id]; if (c == 0 || c->parent != t->active) goto slow;
//   }                                    (where fn was entered last on this thread:
//                                         a parent calling many functions in turn)
//   c->calls++; t->active = c; if (--c->countdown == 0) time_fn(c);
//   goto done;
// slow:
//   c = enter_slow(fn);                  (finds or makes the child, sets t->last[id])
// done:
static void emit_enter(out *o, const vb_il_plan *p) {
	emit_calli(o, p->thread_fn, p->sig_p0);
	emit_local(o, 1, p->t_local);
	emit_local(o, 0, p->t_local);
	uint32_t slow0 = br_fwd(o, BRFALSE);

	emit_field_addr(o, p->t_local, offsetof(vb_thread, active)); // c = t->active->hint
	u8(o, LDIND_I);
	u8(o, 0x1F);
	u8(o, (uint8_t)offsetof(vb_node, hint));
	u8(o, 0x58);
	u8(o, LDIND_I);
	_Static_assert(offsetof(vb_node, hint) < 128, "ldc.i4.s above");
	emit_local(o, 1, p->node_local);
	emit_local(o, 0, p->node_local); // c->fn == fn?
	u8(o, LDIND_I);
	emit_ptr(o, p->fn);
	uint32_t hit = br_fwd(o, BEQ);

	uint32_t slow1 = 0, slow2 = 0, slow3 = 0;
	if (p->fn_id < VB_LAST_CAP) {
		emit_field_addr(o, p->t_local, offsetof(vb_thread, last)); // a = t->last
		u8(o, LDIND_I);
		emit_local(o, 1, p->a_local);
		emit_local(o, 0, p->a_local);
		slow1 = br_fwd(o, BRFALSE);
		emit_local(o, 0, p->a_local); // c = a[id]
		u8(o, 0x20);                  // ldc.i4 id*8
		u32(o, p->fn_id * (uint32_t)sizeof(vb_node *));
		u8(o, 0x58);
		u8(o, LDIND_I);
		emit_local(o, 1, p->node_local);
		emit_local(o, 0, p->node_local);
		slow2 = br_fwd(o, BRFALSE);
		emit_field_addr(o, p->node_local, offsetof(vb_node, parent)); // c->parent == t->active?
		u8(o, LDIND_I);
		emit_field_addr(o, p->t_local, offsetof(vb_thread, active));
		u8(o, LDIND_I);
		slow3 = br_fwd(o, BNE_UN); // else fall through: a hit
	} else {
		slow1 = br_fwd(o, OP_BR);
	}
	br_here(o, hit);

	emit_field_addr(o, p->node_local, offsetof(vb_node, calls)); // c->calls++
	u8(o, 0x25);
	u8(o, LDIND_I8);
	u8(o, 0x17); // ldc.i4.1
	u8(o, 0x6A); // conv.i8
	u8(o, 0x58);
	u8(o, STIND_I8);
	emit_field_addr(o, p->t_local, offsetof(vb_thread, active)); // t->active = c
	emit_local(o, 0, p->node_local);
	u8(o, STIND_I);
	emit_field_addr(o, p->node_local, offsetof(vb_node, countdown)); // --c->countdown
	u8(o, 0x25);
	u8(o, LDIND_I8);
	u8(o, 0x17);
	u8(o, 0x6A);
	u8(o, 0x59); // sub
	u8(o, STIND_I8);
	emit_field_addr(o, p->node_local, offsetof(vb_node, countdown));
	u8(o, LDIND_I8);
	uint32_t untimed = br_fwd(o, BRTRUE);
	emit_local(o, 0, p->node_local);
	emit_calli(o, p->time_fn, p->sig_v1);
	uint32_t done = br_fwd(o, OP_BR);

	br_here(o, slow0);
	br_here(o, slow1);
	if (slow2) br_here(o, slow2);
	if (slow3) br_here(o, slow3);
	emit_ptr(o, p->fn);
	emit_calli(o, p->enter_slow, p->sig_p1);
	emit_local(o, 1, p->node_local);
	br_here(o, untimed);
	br_here(o, done);
}

// Close the frame:
//   if (t->active == c && c->start == 0) t->active = c->parent; else leave_slow(c, fn);
static void emit_leave_call(out *o, const vb_il_plan *p) {
	emit_field_addr(o, p->t_local, offsetof(vb_thread, active));
	u8(o, LDIND_I);
	emit_local(o, 0, p->node_local);
	uint32_t slow1 = br_fwd(o, BNE_UN);
	emit_field_addr(o, p->node_local, offsetof(vb_node, start));
	u8(o, LDIND_I8);
	uint32_t slow2 = br_fwd(o, BRTRUE);
	emit_field_addr(o, p->t_local, offsetof(vb_thread, active));
	emit_field_addr(o, p->node_local, offsetof(vb_node, parent));
	u8(o, LDIND_I);
	u8(o, STIND_I);
	uint32_t done = br_fwd(o, OP_BR);
	br_here(o, slow1);
	br_here(o, slow2);
	emit_local(o, 0, p->node_local);
	emit_ptr(o, p->fn);
	emit_calli(o, p->leave_slow, p->sig_v2);
	br_here(o, done);
}

// unwind(fn)
static void emit_unwind(out *o, const vb_il_plan *p) {
	emit_ptr(o, p->fn);
	emit_calli(o, p->unwind, p->sig_v1);
}

static void emit_local(out *o, int store, uint32_t idx) {
	if (idx < 256) {
		u8(o, store ? 0x13 : 0x11); // stloc.s / ldloc.s
		u8(o, (uint8_t)idx);
	} else {
		u8(o, 0xFE);
		u8(o, store ? 0x0E : 0x0C); // stloc / ldloc
		u16(o, (uint16_t)idx);
	}
}

// The fat header's size: code offsets are buffer offsets minus this.
#define HDR 12

// leave to one of our labels
static void emit_leave(out *o, fixups *fs, int label) {
	u8(o, OP_LEAVE);
	uint32_t at = o->n;
	u32(o, 0);
	fix(fs, at, o->n - HDR, (uint32_t)label, 1);
}

// Whether original offset off lies inside any clause's protected or handler
// (or filter) region: no ret, tail call or jmp may be there.
static int in_region(const vb_il *m, uint32_t off) {
	for (uint32_t i = 0; i < m->nclauses; i++) {
		const vb_clause *c = &m->clauses[i];
		if (off >= c->try_off && off - c->try_off < c->try_len) return 1;
		if (off >= c->h_off && off - c->h_off < c->h_len) return 1;
		if (c->flags & EH_FILTER && off >= c->extra && off < c->h_off) return 1;
	}
	return 0;
}

static int transfers_control(uint16_t op) {
	return op == OP_RET || op == OP_BR || op == OP_BR_S || op == OP_LEAVE || op == OP_LEAVE_S || op == OP_THROW ||
		op == OP_RETHROW || op == OP_ENDFINALLY || op == OP_ENDFILTER || op == OP_JMP;
}

// may_throw: whether an instruction can raise an exception. Anything not
// known to be safe counts: calls, memory access (a null or misaligned
// address), division, overflow checks, casts, allocation, static field
// access (a type initializer may fail), throw.
static int may_throw(uint16_t op) {
	if (op <= 0x26) return op == 0x24; // nop .. pop: loads, stores, constants (0x24 is no opcode)
	if (op == OP_RET || (op >= OP_BR_S && op <= 0x45)) return 0; // ret, branches, switch
	if (op >= 0x58 && op <= 0x5A) return 0;      // add, sub, mul
	if (op >= 0x5F && op <= 0x6E) return 0;      // and, or, xor, shl, shr, shr.un, neg, not, conv.* (unchecked)
	if (op == 0x76 || op == 0xD1 || op == 0xD2 || op == 0xD3 || op == 0xE0) return 0; // conv.r.un, conv.u2, conv.u1, conv.i, conv.u
	if (op == OP_LEAVE || op == OP_LEAVE_S) return 0;
	if (op >= 0xFE01 && op <= 0xFE05) return 0;  // ceq, cgt, cgt.un, clt, clt.un
	if (op >= 0xFE09 && op <= 0xFE0E) return 0;  // ldarg, ldarga, starg, ldloc, ldloca, stloc
	if (op == 0xFE13 || op == 0xFE1E) return 0;  // volatile., readonly.
	return 1;
}

enum { LABEL_END = 0, LABEL_EXIT0 = 1 }; // exits: one per tail call site, then one per jmp

// One rewrite's state, shared by its steps below. Each step returns 0 with
// *why set on anything it cannot express; vb_il_rewrite then frees it all.
typedef struct {
	const vb_il *m;
	const vb_il_plan *p;
	const char **why;
	out o;                  // the new body: header placeholder, then code, then the EH section
	fixups fs;              // branch operands waiting for their targets' new offsets
	uint32_t *map;          // original offset -> new offset (UINT32_MAX: inside an instruction)
	uint32_t *tail_of;      // insn -> 1 + tail site index (0: not a tail site)
	uint32_t *jmps, njmp;   // the jmp instructions, in order (their exits follow the tail sites')
	uint32_t nexits;        // exit labels handed out so far
	uint32_t *label_at;     // label -> new offset
	int fault;              // the body gets a try/fault
	uint32_t try_start, try_end, h_start, h_end; // that clause, in new offsets
} rewrite;

// The current position as a code offset (the header comes first).
static uint32_t here(const rewrite *r) { return r->o.n - HDR; }

// rewrite_start allocates the tables and checks the one shape no rewrite
// can wrap: code falling off its end would fall into our exits.
static int rewrite_start(rewrite *r) {
	const vb_il *m = r->m;
	r->map = malloc((m->code_size + 1) * sizeof *r->map);
	r->tail_of = calloc(m->ninsns, sizeof *r->tail_of);
	r->jmps = calloc(m->ninsns, sizeof *r->jmps);
	r->nexits = r->p->ntails;
	if (!r->map || !r->tail_of || !r->jmps) {
		*r->why = "out of memory";
		return 0;
	}
	for (uint32_t i = 0; i <= m->code_size; i++) r->map[i] = UINT32_MAX;
	for (uint32_t k = 0; k < r->p->ntails; k++) r->tail_of[r->p->tails[k].insn] = k + 1;

	const vb_insn *last = &m->insns[m->ninsns - 1];
	if (!transfers_control(last->op)) {
		*r->why = "the code falls off its end";
		return 0;
	}
	return 1;
}

// A body that cannot throw needs no fault handler: the JIT compiles it
// faster and inlines it more readily. (leave outside a protected region
// is a branch that empties the stack, as our exits need.)
static int needs_fault(const vb_il *m) {
	int fault = m->nclauses > 0;
	for (uint32_t i = 0; i < m->ninsns && !fault; i++) fault = may_throw(m->insns[i].op);
	return fault;
}

// emit_prologue reserves the header (its sizes are known only at the end)
// and opens the frame; the try region starts after it.
static void emit_prologue(rewrite *r) {
	for (int i = 0; i < HDR / 4; i++) u32(&r->o, 0);
	emit_enter(&r->o, r->p);
	r->try_start = here(r);
}

// emit_tail_site spills a tail call's arguments to its locals and leaves to
// the site's exit, where the frame is closed before the call is made.
static int emit_tail_site(rewrite *r, uint32_t i) {
	const vb_il *m = r->m;
	const vb_tailsite *t = &r->p->tails[r->tail_of[i] - 1];
	if (i + 1 >= m->ninsns || in_region(m, m->insns[i].off)) {
		*r->why = "a tail call inside a protected region";
		return 0;
	}
	for (uint32_t j = t->nlocals; j-- > 0;) emit_local(&r->o, 1, t->locals[j]);
	emit_leave(&r->o, &r->fs, LABEL_EXIT0 + (int)(r->tail_of[i] - 1));
	return 1;
}

// emit_branch: short branches become long ones (the rewritten code is
// longer); the target is filled in once its new offset is known.
static int emit_branch(rewrite *r, const vb_insn *in) {
	uint16_t op = in->op;
	if (in->kind == IL_BR8) op = op == OP_LEAVE_S ? OP_LEAVE : (uint16_t)(op + (OP_BR - OP_BR_S));
	u8(&r->o, (uint8_t)op);
	uint32_t at = r->o.n;
	u32(&r->o, 0);
	if (in->arg < 0 || in->arg >= r->m->code_size) {
		*r->why = "a branch outside the method";
		return 0;
	}
	fix(&r->fs, at, here(r), (uint32_t)in->arg, 0);
	return 1;
}

// emit_switch: the same for each of a switch's targets.
static int emit_switch(rewrite *r, const vb_insn *in) {
	u8(&r->o, OP_SWITCH);
	u32(&r->o, in->nsw);
	uint32_t first = r->o.n;
	for (uint32_t k = 0; k < in->nsw; k++) u32(&r->o, 0);
	uint32_t base = here(r);
	for (uint32_t k = 0; k < in->nsw; k++) {
		uint32_t t = r->m->targets[in->sw + k];
		if (t >= r->m->code_size) {
			*r->why = "a switch target outside the method";
			return 0;
		}
		fix(&r->fs, first + 4 * k, base, t, 0);
	}
	return 1;
}

// emit_insn copies one instruction, changing what the wrapping requires:
// ret and jmp leave to an exit that closes the frame first (storing the
// return value on the way), branches get long forms and moved targets.
static int emit_insn(rewrite *r, uint32_t i) {
	const vb_il *m = r->m;
	const vb_insn *in = &m->insns[i];
	switch (in->op) {
	case OP_TAIL:
		*r->why = "a tail. prefix the rewriter was not prepared for";
		return 0;
	case OP_RET:
		if (in_region(m, in->off)) {
			*r->why = "ret inside a protected region";
			return 0;
		}
		if (r->p->ret_local >= 0) emit_local(&r->o, 1, (uint32_t)r->p->ret_local);
		emit_leave(&r->o, &r->fs, LABEL_END);
		return 1;
	case OP_JMP:
		if (in_region(m, in->off)) {
			*r->why = "jmp inside a protected region";
			return 0;
		}
		r->jmps[r->njmp++] = i;
		emit_leave(&r->o, &r->fs, LABEL_EXIT0 + (int)(r->nexits++));
		return 1;
	}
	switch (in->kind) {
	case IL_BR8:
	case IL_BR32:
		return emit_branch(r, in);
	case IL_SWITCH:
		return emit_switch(r, in);
	default:
		vb_bytes_put(&r->o, m->code + in->off, in->len);
		return 1;
	}
}

uint32_t vb_il_leaders(const vb_il *m, uint32_t *out, uint32_t cap) {
	uint8_t *lead = calloc(m->code_size + 1, 1);
	if (!lead) return 0;
	lead[0] = 1;
	for (uint32_t i = 0; i < m->ninsns; i++) {
		const vb_insn *in = &m->insns[i];
		uint32_t next = in->off + in->len;
		int ends = 0;
		if (in->kind == IL_BR8 || in->kind == IL_BR32) {
			if (in->arg >= 0 && in->arg < m->code_size) lead[in->arg] = 1;
			ends = 1;
		} else if (in->kind == IL_SWITCH) {
			for (uint32_t k = 0; k < in->nsw; k++)
				if (m->targets[in->sw + k] < m->code_size) lead[m->targets[in->sw + k]] = 1;
			ends = 1;
		}
		switch (in->op) {
		case OP_RET: case OP_THROW: case OP_RETHROW: case OP_ENDFINALLY: case OP_ENDFILTER: case OP_JMP:
			ends = 1;
		}
		if (ends && next < m->code_size) lead[next] = 1;
	}
	for (uint32_t i = 0; i < m->nclauses; i++) {
		const vb_clause *c = &m->clauses[i];
		uint64_t te = (uint64_t)c->try_off + c->try_len, he = (uint64_t)c->h_off + c->h_len;
		if (c->try_off < m->code_size) lead[c->try_off] = 1;
		if (c->h_off < m->code_size) lead[c->h_off] = 1;
		if (te < m->code_size) lead[te] = 1;
		if (he < m->code_size) lead[he] = 1;
		if ((c->flags & EH_FILTER) && c->extra < m->code_size) lead[c->extra] = 1;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->ninsns; i++)
		if (lead[m->insns[i].off]) {
			if (n < cap) out[n] = m->insns[i].off;
			n++;
		}
	free(lead);
	return n;
}

// emit_count: counts[k]++ (not atomic: threads running one block at once
// may lose counts), stack-neutral, so it may stand where the stack holds a
// catch handler's exception.
static void emit_count(out *o, uint64_t *counter) {
	emit_ptr(o, (uint64_t)(uintptr_t)counter);
	u8(o, 0x25);        // dup
	u8(o, 0x4C);        // ldind.i8
	u8(o, 0x17);        // ldc.i4.1
	u8(o, 0x6A);        // conv.i8
	u8(o, 0x58);        // add
	u8(o, 0x55);        // stind.i8
}

// emit_body emits the original code, the try region, recording where each
// instruction landed (for branches and exception clauses).
static int emit_body(rewrite *r) {
	const vb_il *m = r->m;
	uint32_t lk = 0;
	for (uint32_t i = 0; i < m->ninsns; i++) {
		r->map[m->insns[i].off] = here(r);
		if (lk < r->p->nleaders && r->p->leaders[lk] == m->insns[i].off) emit_count(&r->o, &r->p->counts[lk++]);
		if (r->tail_of[i]) {
			if (!emit_tail_site(r, i)) return 0;
			i++; // the call itself moves to the exit; a branch to it is invalid IL
			continue;
		}
		if (!emit_insn(r, i)) return 0;
	}
	r->try_end = here(r);
	r->map[m->code_size] = r->try_end;
	return 1;
}

// The fault handler: an exception is leaving the method.
static void emit_fault_handler(rewrite *r) {
	r->h_start = here(r);
	if (r->fault) {
		emit_unwind(&r->o, r->p);
		u8(&r->o, OP_ENDFINALLY); // endfault
	}
	r->h_end = here(r);
}

// emit_exits emits the labels the body leaves to, each closing the frame:
// the common exit returns what the body returned (a body without a ret, one
// that always throws, has none: its ret would be invalid IL in a method
// returning a value); a tail call's reloads the arguments and makes the
// call; a jmp's makes the jmp.
static int emit_exits(rewrite *r) {
	const vb_il *m = r->m;
	const vb_il_plan *p = r->p;
	r->label_at = calloc(1 + r->nexits, sizeof *r->label_at);
	if (!r->label_at) {
		*r->why = "out of memory";
		return 0;
	}
	int has_ret = 0;
	for (uint32_t i = 0; i < m->ninsns && !has_ret; i++) has_ret = m->insns[i].op == OP_RET;
	if (has_ret) {
		r->label_at[LABEL_END] = here(r);
		emit_leave_call(&r->o, p);
		if (p->ret_local >= 0) emit_local(&r->o, 0, (uint32_t)p->ret_local);
		u8(&r->o, OP_RET);
	}
	for (uint32_t k = 0; k < p->ntails; k++) {
		const vb_tailsite *t = &p->tails[k];
		const vb_insn *call = &m->insns[t->insn + 1];
		r->label_at[LABEL_EXIT0 + k] = here(r);
		emit_leave_call(&r->o, p);
		for (uint32_t j = 0; j < t->nlocals; j++) emit_local(&r->o, 0, t->locals[j]);
		u8(&r->o, 0xFE);
		u8(&r->o, 0x14);
		vb_bytes_put(&r->o, m->code + call->off, call->len);
		u8(&r->o, OP_RET);
	}
	for (uint32_t k = 0; k < r->njmp; k++) {
		const vb_insn *in = &m->insns[r->jmps[k]];
		r->label_at[LABEL_EXIT0 + p->ntails + k] = here(r);
		emit_leave_call(&r->o, p);
		vb_bytes_put(&r->o, m->code + in->off, in->len);
	}
	return 1;
}

// resolve_fixups fills in every branch operand now that all code is placed;
// a target that is no instruction's start means the original was invalid.
static int resolve_fixups(rewrite *r) {
	if (r->fs.oom || r->o.oom) {
		*r->why = "out of memory";
		return 0;
	}
	for (uint32_t i = 0; i < r->fs.n; i++) {
		fixup *f = &r->fs.f[i];
		uint32_t t = f->label ? r->label_at[f->target] : r->map[f->target];
		if (t == UINT32_MAX) {
			*r->why = "a branch into the middle of an instruction";
			return 0;
		}
		set32(&r->o, f->at, t - f->base);
	}
	return 1;
}

// emit_clauses writes the exception section: the method's own clauses
// (offsets moved), then ours, the outermost. *nc: clauses written (0: no
// section).
static int emit_clauses(rewrite *r, uint32_t *nc) {
	const vb_il *m = r->m;
	*nc = m->nclauses + (uint32_t)r->fault;
	if (*nc == 0) return 1;
	while (here(r) % 4) u8(&r->o, 0);
	uint32_t dsize = 4 + 24 * *nc;
	if (dsize >= 1u << 24) {
		*r->why = "too many exception clauses";
		return 0;
	}
	u32(&r->o, 0x41 | dsize << 8); // EHTable | FatFormat, data size
	const uint32_t *map = r->map;
	for (uint32_t i = 0; i < m->nclauses; i++) {
		const vb_clause *c = &m->clauses[i];
		uint64_t te = (uint64_t)c->try_off + c->try_len, he = (uint64_t)c->h_off + c->h_len;
		if (te > m->code_size || he > m->code_size || ((c->flags & EH_FILTER) && c->extra >= m->code_size)) {
			*r->why = "an exception clause outside the code";
			return 0;
		}
		uint32_t ts = map[c->try_off], tend = map[te], hs = map[c->h_off], hend = map[he];
		uint32_t extra = c->extra;
		if (c->flags & EH_FILTER) extra = map[c->extra];
		if (ts == UINT32_MAX || tend == UINT32_MAX || hs == UINT32_MAX || hend == UINT32_MAX || extra == UINT32_MAX) {
			*r->why = "an exception clause boundary inside an instruction";
			return 0;
		}
		u32(&r->o, c->flags), u32(&r->o, ts), u32(&r->o, tend - ts), u32(&r->o, hs), u32(&r->o, hend - hs), u32(&r->o, extra);
	}
	if (r->fault)
		u32(&r->o, EH_FAULT), u32(&r->o, r->try_start), u32(&r->o, r->try_end - r->try_start), u32(&r->o, r->h_start),
			u32(&r->o, r->h_end - r->h_start), u32(&r->o, 0);
	return 1;
}

// write_header fills in the placeholder: fat format, more sections if any,
// InitLocals as it was, size 3 dwords.
static int write_header(rewrite *r, uint32_t nc, uint32_t code_size) {
	if (r->o.oom) {
		*r->why = "out of memory";
		return 0;
	}
	uint16_t flags = 0x3 | (nc ? 0x8 : 0) | (r->m->flags & 0x10);
	uint16_t max_stack = r->m->max_stack < 3 ? 3 : r->m->max_stack; // our sequences push at most three
	if (r->p->nleaders && max_stack < 0xFFFF - 3) max_stack = (uint16_t)(r->m->max_stack + 3); // a count may sit on a handler's exception
	r->o.b[0] = (uint8_t)flags;
	r->o.b[1] = (uint8_t)(flags >> 8 | 3 << 4);
	r->o.b[2] = (uint8_t)max_stack;
	r->o.b[3] = (uint8_t)(max_stack >> 8);
	set32(&r->o, 4, code_size);
	set32(&r->o, 8, r->p->local_sig);
	return 1;
}

static void rewrite_free(rewrite *r) {
	free(r->o.b);
	free(r->fs.f);
	free(r->map);
	free(r->tail_of);
	free(r->jmps);
	free(r->label_at);
}

int vb_il_rewrite(const vb_il *m, const vb_il_plan *p, uint8_t **outp, uint32_t *out_size, const char **why) {
	rewrite r = {.m = m, .p = p, .why = why};
	uint32_t code_size = 0, nc = 0;
	int ok = 0;
	if (!rewrite_start(&r)) goto done;
	r.fault = needs_fault(m);
	emit_prologue(&r);
	if (!emit_body(&r)) goto done;
	emit_fault_handler(&r);
	if (!emit_exits(&r)) goto done;
	code_size = here(&r);
	if (!resolve_fixups(&r) || !emit_clauses(&r, &nc) || !write_header(&r, nc, code_size)) goto done;
	*outp = r.o.b;
	*out_size = r.o.n;
	r.o.b = 0;
	ok = 1;
done:
	rewrite_free(&r);
	return ok;
}
