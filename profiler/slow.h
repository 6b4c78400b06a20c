// The deliberately slow profiler (`make slow-profiler`, -tags vbenchslow):
// a known regression for testing the harness's verdicts. Every enter hook
// first runs VB_SLOW_DELAY, a fixed spin of VB_SLOW_SPINS dependent
// iterations; the shipped library (no VB_SLOW_HOOKS) has no trace of it.
// Sized so that fibonacci under tracing is about 5% slower (docs/harness.md,
// "A known regression"). Clobbers only r10 and flags, which the stub
// overwrites next anyway.
#ifndef VB_SLOW_H
#define VB_SLOW_H

#ifndef VB_SLOW_SPINS
#define VB_SLOW_SPINS 3
#endif

#if defined(__ASSEMBLER__) && defined(VB_SLOW_HOOKS)
.macro VB_SLOW_DELAY
	mov r10d, VB_SLOW_SPINS
.Lvb_slow_spin\@:
	dec r10d
	jnz .Lvb_slow_spin\@
.endm
#endif

#endif
