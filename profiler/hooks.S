// SysV x64 stubs for the FunctionEnter3/Leave3/Tailcall3 fast-path hooks.
// CoreCLR saves no registers around these calls, so a stub must preserve
// everything the System V ABI lets a callee clobber that the managed code may
// still need: the argument registers on enter (rdi, rsi, rdx, rcx, r8, r9;
// r10/r11 too, to be safe) and the return registers on leave (rax, rdx). The
// C they call (hot.c) is built general-registers-only, so xmm0-7 are never
// touched on the common path; only the once-per-thread slow path (which calls
// libc) saves them.
//
// Where the client ID (our vb_fn record) arrives: on Unix x64 the JIT calls
// the enter probe with it in r14 (and the profiled method's RSP in r15), so
// that the argument registers stay live across the probe; leave and tailcall
// probes get it in rdi (RSP in rsi). See ProfileEnterNaked in dotnet/runtime
// src/coreclr/vm/amd64/asmhelpers.S: with fast-path ELT3 hooks registered the
// JIT calls our stubs directly, with exactly those registers. r14 is
// callee-saved, so the slow path can reload it after vb_enter_fast.

	.intel_syntax noprefix
#include "slow.h"
	.text

// SAVE_INT/RESTORE_INT: push the caller-saved integer registers and align the
// stack for a call (the hook may be entered with any alignment).
.macro SAVE_INT
	push rbp
	mov rbp, rsp
	push rax
	push rcx
	push rdx
	push rsi
	push rdi
	push r8
	push r9
	push r10
	push r11
	and rsp, -16
.endm

.macro RESTORE_INT
	lea rsp, [rbp-72]
	pop r11
	pop r10
	pop r9
	pop r8
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rax
	pop rbp
.endm

.macro SAVE_XMM
	sub rsp, 128
	movdqu [rsp+0], xmm0
	movdqu [rsp+16], xmm1
	movdqu [rsp+32], xmm2
	movdqu [rsp+48], xmm3
	movdqu [rsp+64], xmm4
	movdqu [rsp+80], xmm5
	movdqu [rsp+96], xmm6
	movdqu [rsp+112], xmm7
.endm

.macro RESTORE_XMM
	movdqu xmm0, [rsp+0]
	movdqu xmm1, [rsp+16]
	movdqu xmm2, [rsp+32]
	movdqu xmm3, [rsp+48]
	movdqu xmm4, [rsp+64]
	movdqu xmm5, [rsp+80]
	movdqu xmm6, [rsp+96]
	movdqu xmm7, [rsp+112]
	add rsp, 128
.endm

// Field offsets (checked against vb.h by _Static_assert in hot.c).
#define N_FN 0
#define N_PARENT 8
#define N_HINT 32
#define N_CALLS 40
#define N_INCL 48
#define N_TIMED 56
#define N_START 64
#define N_COUNT 88
#define T_ACTIVE 136
#define T_RNG 160

// The fast paths below are pure assembly: load the thread's tree from the
// initial-exec TLS slot and check that the node we expect is there (enter:
// the active node's last-hit child is this function; leave: the active node
// is this function). A thread without a tree points at a sentinel whose root
// has no child and no function, and a thread whose arena ran out has a
// sentinel active node, and a node without a child yet has a sentinel hint,
// so the checks fail for them and need no test of their own. Then: count the
// call, and take an rdtsc only if this call is timed (a node's first calls;
// later about one in 16, at random: see vb_time_this in hot.c); an untimed
// call touches nothing else (a closed frame's start is always 0). They clobber only r10, r11 and flags (CoreCLR's
// own ProfileEnterNaked/ProfileLeaveNaked do not preserve r10/r11 either)
// and save rax/rdx around rdtsc. Everything else takes the C path with every
// caller-saved register preserved.

	.globl vb_enter_stub
	.hidden vb_enter_stub
	.type vb_enter_stub, @function
vb_enter_stub:
	mov r11, QWORD PTR vb_tls_thread@GOTTPOFF[rip]
	mov r11, QWORD PTR fs:[r11]
	mov r10, QWORD PTR [r11+T_ACTIVE]
#ifdef VB_SLOW_HOOKS
	VB_SLOW_DELAY r10	// only in the deliberately slow build (slow.h)
#endif
	mov r10, QWORD PTR [r10+N_HINT]
	cmp QWORD PTR [r10+N_FN], r14
	jne .Lenter_c
	inc QWORD PTR [r10+N_CALLS]
	mov QWORD PTR [r11+T_ACTIVE], r10
	dec QWORD PTR [r10+N_COUNT]
	jz .Lenter_time
	ret			// untimed: start is already 0
.Lenter_time:
	push rax
	push rdx
	mov rax, QWORD PTR [r10+N_CALLS]
	cmp rax, QWORD PTR vb_exact_calls[rip]
	jg 1f
	mov QWORD PTR [r10+N_COUNT], 1
	jmp 2f
1:	mov rax, QWORD PTR [r11+T_RNG]	// next gap: xorshift64, 1..vb_time_mask+1
	mov rdx, rax
	shl rdx, 13
	xor rax, rdx
	mov rdx, rax
	shr rdx, 7
	xor rax, rdx
	mov rdx, rax
	shl rdx, 17
	xor rax, rdx
	mov QWORD PTR [r11+T_RNG], rax
	and rax, QWORD PTR vb_time_mask[rip]
	inc rax
	mov QWORD PTR [r10+N_COUNT], rax
2:	rdtsc
	shl rdx, 32
	or rax, rdx
	mov QWORD PTR [r10+N_START], rax
	pop rdx
	pop rax
	ret
.Lenter_c:
	SAVE_INT
	mov rdi, r14
	call vb_enter_fast
	test eax, eax
	jnz 1f
	RESTORE_INT
	ret
1:	// first managed call on this thread: create its tree (calls libc)
	SAVE_XMM
	mov rdi, r14
	call vb_enter_slow
	RESTORE_XMM
	RESTORE_INT
	ret
	.size vb_enter_stub, .-vb_enter_stub

// Leave and tailcall (a tail call leaves the current frame before the
// callee's enter) share one stub: the client ID is in rdi for both.
	.globl vb_leave_stub
	.hidden vb_leave_stub
	.type vb_leave_stub, @function
	.globl vb_tailcall_stub
	.hidden vb_tailcall_stub
	.type vb_tailcall_stub, @function
vb_leave_stub:
vb_tailcall_stub:
	mov r11, QWORD PTR vb_tls_thread@GOTTPOFF[rip]
	mov r11, QWORD PTR fs:[r11]
	mov r10, QWORD PTR [r11+T_ACTIVE]
	cmp QWORD PTR [r10+N_FN], rdi
	jne .Lleave_c
	cmp QWORD PTR [r10+N_START], 0
	jne .Lleave_time
	mov r10, QWORD PTR [r10+N_PARENT]
	mov QWORD PTR [r11+T_ACTIVE], r10
	ret
.Lleave_time:
	push rax
	push rdx
	rdtsc
	shl rdx, 32
	or rax, rdx
	sub rax, QWORD PTR [r10+N_START]
	add QWORD PTR [r10+N_INCL], rax
	inc QWORD PTR [r10+N_TIMED]
	mov QWORD PTR [r10+N_START], 0
	mov r10, QWORD PTR [r10+N_PARENT]
	mov QWORD PTR [r11+T_ACTIVE], r10
	pop rdx
	pop rax
	ret
.Lleave_c:
	SAVE_INT
	call vb_leave_fast
	RESTORE_INT
	ret
	.size vb_leave_stub, .-vb_leave_stub
	.size vb_tailcall_stub, .-vb_tailcall_stub

// The timeline's stubs (VBENCH_TIMELINE=1): every call goes to C
// (vb_tl_enter, vb_tl_leave in hot.c), which keeps the tree as the fast
// paths above do and writes the call's event; the first call on a thread
// makes its tree and timeline through the slow path, as above.
	.globl vb_tl_enter_stub
	.hidden vb_tl_enter_stub
	.type vb_tl_enter_stub, @function
vb_tl_enter_stub:
	SAVE_INT
	mov rdi, r14
	call vb_tl_enter
	test eax, eax
	jnz 1f
	RESTORE_INT
	ret
1:	SAVE_XMM
	mov rdi, r14
	call vb_tl_enter_slow
	RESTORE_XMM
	RESTORE_INT
	ret
	.size vb_tl_enter_stub, .-vb_tl_enter_stub

	.globl vb_tl_leave_stub
	.hidden vb_tl_leave_stub
	.type vb_tl_leave_stub, @function
vb_tl_leave_stub:
	SAVE_INT
	call vb_tl_leave
	RESTORE_INT
	ret
	.size vb_tl_leave_stub, .-vb_tl_leave_stub

// The null engine: registered like the tracer's hooks, does nothing. It is the
// floor any enter/leave tracer pays.
	.globl vb_null_stub
	.hidden vb_null_stub
	.type vb_null_stub, @function
vb_null_stub:
	ret
	.size vb_null_stub, .-vb_null_stub

	.section .note.GNU-stack,"",@progbits
