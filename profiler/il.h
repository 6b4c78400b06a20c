// IL method bodies (ECMA-335 II.25.4): decoding a body into instructions and
// exception clauses, and re-emitting it wrapped in the instrumentation
// engine's counting calls. Pure C on byte buffers: no CLR calls here (instr.c
// feeds it what the runtime and metadata say).
#ifndef VB_IL_H
#define VB_IL_H

#include <stdint.h>
#include "com.h"

// Operand kinds of the IL instruction set.
enum {
	IL_NONE,   // no operand
	IL_U8,     // one byte: short local/argument index, ldc.i4.s, unaligned., no.
	IL_U16,    // two bytes: long local/argument index
	IL_I32,    // four bytes: ldc.i4, ldc.r4, or a metadata token
	IL_I64,    // eight bytes: ldc.i8, ldc.r8
	IL_BR8,    // short branch: signed byte relative to the next instruction
	IL_BR32,   // long branch: signed int32 relative to the next instruction
	IL_SWITCH, // uint32 n, then n int32 targets relative to the end of the instruction
	IL_BAD,    // not an opcode
};

// Opcodes the rewriter treats specially (two-byte ones as 0xFE00 | second byte).
enum {
	OP_JMP = 0x27,
	OP_CALL = 0x28,
	OP_CALLI = 0x29,
	OP_RET = 0x2A,
	OP_BR_S = 0x2B,
	OP_BLT_UN_S = 0x37,
	OP_BR = 0x38,
	OP_SWITCH = 0x45,
	OP_CALLVIRT = 0x6F,
	OP_NEWOBJ = 0x73,
	OP_THROW = 0x7A,
	OP_ENDFINALLY = 0xDC,
	OP_LEAVE = 0xDD,
	OP_LEAVE_S = 0xDE,
	OP_ENDFILTER = 0xFE11,
	OP_TAIL = 0xFE14,
	OP_RETHROW = 0xFE1A,
};

typedef struct {
	uint32_t off;    // offset in the original code
	uint32_t len;    // bytes, opcode and operand
	uint16_t op;     // opcode
	uint8_t kind;    // IL_*
	int64_t arg;     // operand value (branch: absolute target offset)
	uint32_t sw;     // switch: index of its first target in vb_il.targets
	uint32_t nsw;    // switch: number of targets
} vb_insn;

// One exception clause, fat form (small clauses are widened when read).
typedef struct {
	uint32_t flags, try_off, try_len, h_off, h_len, extra; // extra: class token or filter offset
} vb_clause;

#define EH_CATCH 0
#define EH_FILTER 1
#define EH_FINALLY 2
#define EH_FAULT 4

// A decoded method body.
typedef struct {
	int fat;                // header format
	uint16_t flags;         // fat header flags (InitLocals 0x10 matters)
	uint16_t max_stack;     // tiny: 8
	mdToken local_sig;      // 0: no locals
	const uint8_t *code;
	uint32_t code_size;
	vb_insn *insns;
	uint32_t ninsns;
	uint32_t *targets;      // switch targets (absolute original offsets)
	uint32_t ntargets;
	vb_clause *clauses;
	uint32_t nclauses;
} vb_il;

// vb_il_decode parses a method body as GetILFunctionBody returns it (header,
// code, extra sections; size is what the runtime said, 0 if unknown). On
// failure it returns 0 and *why says what is wrong.
int vb_il_decode(const uint8_t *body, uint32_t size, vb_il *m, const char **why);
void vb_il_free(vb_il *m);

// One explicit tail call site ("tail." call/callvirt/calli then ret): its
// arguments (and calli's target last) are spilled to these locals, in push
// order, and the call is made after the method's frame was closed.
typedef struct {
	uint32_t insn;          // index of the tail. prefix in vb_il.insns
	uint32_t nlocals;
	uint16_t *locals;       // local indices, first pushed first
} vb_tailsite;

// How to rewrite a body. The common path of entry and exit is IL that
// updates the thread's call tree in place (vb_thread and vb_node offsets from
// vb.h): one native call returns the thread's vb_thread, then the active
// node's last-hit child is checked, counted and made active; on exit the
// parent becomes active again. Native calls handle the rest: a new child,
// a timed call (rdtsc), a mismatched exit, the exception path.
typedef struct {
	uint64_t fn;            // the vb_fn record
	uint32_t fn_id;         // its id (index of the per-thread last-node table)
	uint64_t thread_fn;     // vb_thread *(): this thread's tree
	uint64_t enter_slow;    // vb_node *(vb_fn *): any enter the inline path does not finish
	uint64_t time_fn;       // void (vb_node *): this call is timed
	uint64_t leave_slow;    // void (vb_node *, vb_fn *): any exit the inline path does not finish
	uint64_t unwind;        // void (vb_fn *): the fault handler
	mdToken sig_p0, sig_p1, sig_v1, sig_v2; // native int(), native int(native int), void(native int), void(native int, native int)
	mdToken local_sig;      // the locals signature to use
	uint32_t t_local, a_local, node_local; // native int locals: the thread, its last-node table, the frame's node
	int32_t ret_local;      // local receiving the return value before the frame closes; -1: void
	vb_tailsite *tails;
	uint32_t ntails;
	// Lines (VBENCH_LINES=1): each basic block's leader (original offsets,
	// ascending, from vb_il_leaders) counts its executions into counts[k].
	const uint32_t *leaders;
	uint64_t *counts;
	uint32_t nleaders;
} vb_il_plan;

// vb_il_leaders writes the original offsets that start a basic block (the
// first instruction, branch and switch targets, what follows a branch or
// an exit, exception clause boundaries), ascending, into out (at most
// cap); returns how many there are.
uint32_t vb_il_leaders(const vb_il *m, uint32_t *out, uint32_t cap);

// vb_il_rewrite emits the new body (fat header, code, one EH section) into a
// malloc'd buffer. The original body runs inside a try/fault: the fault
// handler closes the frame when an exception leaves the method; every ret
// becomes a leave to a common exit that closes the frame and returns; a tail
// call closes the frame, then calls; jmp likewise. Returns 0 with *why on
// anything it cannot express.
int vb_il_rewrite(const vb_il *m, const vb_il_plan *p, uint8_t **out, uint32_t *out_size, const char **why);

#endif
