// The deliberately slow profiler (`make slow-profiler`, -tags vbenchslow):
// a known regression for testing the harness's verdicts. Every enter hook
// runs VB_SLOW_DELAY on the active-node pointer it has just loaded: 2 x
// VB_SLOW_SPINS rotations of that register by 32 bits, which leave it as it
// was. The shipped library (no VB_SLOW_HOOKS) has no trace of it.
//
// Why rotations on that register, not a spin loop beside the hook's work:
// the traced recursion is bound by the chain that stores and reloads the
// thread's active node on every call, so an independent loop ran in the
// shadow of that chain, and its cost moved with the hook's own code (4 spins
// sized at +8-10% on 2026-11-22 measured +0% on 2026-11-26). A rotation is
// one cycle of latency on that chain (never eliminated: it is not a move),
// so the cost is VB_SLOW_SPINS x 2 cycles a traced call, near linear and
// independent of how the rest of the hook is scheduled. Sized in
// docs/notebook/statistical-quality.md ("A known regression"). Clobbers nothing: r10 comes out
// as it went in, rotations touch only CF and OF, which the next cmp sets.
#ifndef VB_SLOW_H
#define VB_SLOW_H

#ifndef VB_SLOW_SPINS
#define VB_SLOW_SPINS 3
#endif

#if defined(__ASSEMBLER__) && defined(VB_SLOW_HOOKS)
.macro VB_SLOW_DELAY reg
	.rept 2 * VB_SLOW_SPINS
	ror \reg, 32
	.endr
.endm
#endif

#endif
