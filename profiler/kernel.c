// The kernel window: the part of a run a benchmark measures. The
// benchmarks' harness (benchmarks/common/Harness.cs, KernelMarks) calls
// vbench_kernel_begin and vbench_kernel_end around its kernel from the
// library VBENCH_KERNEL_MARKS names; vbench names this one in a profiled
// run, which the process has loaded already. The samplers count a sample
// taken between them twice: in the whole-process figures, and in each
// node's kernel figures (kincl_samples, kexcl_samples), so that an A/B
// pair's why explains the measured part, not a start-up that came first.
// A program that never calls them leaves the profile whole-process only.
#include "vb.h"

int vb_kernel_on;     // 1 between the marks
int vb_kernel_marked; // a window began

void vbench_kernel_begin(void) {
	__atomic_store_n(&vb_kernel_marked, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&vb_kernel_on, 1, __ATOMIC_RELEASE);
}

// An end before any begin (the harness calls it once to compile its stub)
// does nothing.
void vbench_kernel_end(void) { __atomic_store_n(&vb_kernel_on, 0, __ATOMIC_RELEASE); }

// vb_kernel_add counts a kernel sample of weight w on the path ending at
// leaf (the thread's root: no managed frame), as the merge counted it.
void vb_kernel_add(vb_thread *t, vb_node *leaf, uint64_t w) {
	if (!leaf) return; // the arena was full: the path is cut
	t->root.kincl_samples += w;
	if (leaf == &t->root) return;
	leaf->kexcl_samples += w;
	for (vb_node *n = leaf; n && n != &t->root; n = n->parent) n->kincl_samples += w;
}
