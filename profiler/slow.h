// The deliberately slow profiler (`make slow-profiler`, -tags vbenchslow):
// a known regression for testing the harness's verdicts. Every enter hook
// first runs VB_SLOW_DELAY, a fixed spin of VB_SLOW_SPINS dependent
// iterations; the shipped library (no VB_SLOW_HOOKS) has no trace of it.
// Sized by measuring fibonacci under tracing side by side (kernel CPU time,
// docs/harness.md "A known regression"): the cost is not linear in the
// spins, since the CPU overlaps a short loop with the hook's own work: on
// this project's AMD EPYC VM 3 spins cost +1 to +3%, 4 spins +8 to +10%,
// 6 to 8 spins +15%, 12 spins +40%. 4 is the smallest above the suites'
// min_change of 5%. Clobbers only r10 and flags, which the stub overwrites
// next anyway.
#ifndef VB_SLOW_H
#define VB_SLOW_H

#ifndef VB_SLOW_SPINS
#define VB_SLOW_SPINS 4
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
