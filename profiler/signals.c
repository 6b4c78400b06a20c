// The SA_ONSTACK hazard (golang/go#78883, dotnet/runtime#127320): when the Go
// runtime of a c-shared library initialises, it adds SA_ONSTACK to every
// async signal handler that is already installed, including CoreCLR's
// SIGRTMIN activation handler (thread suspension for GC). That handler then
// runs on the thread's small alternate signal stack and can overflow it.
//
// Go's runtime also installs its own handlers for the synchronous signals
// (SIGSEGV, SIGBUS, SIGFPE, ...) and forwards faults outside Go code to the
// handler it replaced. CoreCLR turns those faults into managed exceptions
// (NullReferenceException, DivideByZeroException), and that does not survive
// the detour: the first DivideByZeroException kills the process with SIGFPE.
//
// Go's own threads block SIGINT, SIGQUIT and SIGTERM: those come to the
// whole process, and the kernel hands such a signal to any thread that does
// not block it, where its handler (the runtime's, crash.c's wrapper) would
// run on whatever stack the thread is on, a goroutine's included. Every
// thread the Go runtime makes takes the signal mask its runtime thread
// started with (initSigmask; a c-shared library may block any signal), and
// that thread is made during dlopen by the thread loading us. So the
// constructor blocks the three on the loading thread and Initialize, once Go
// is up, gives that thread back its own mask (vb_signals_unblock_stops).
// Threads that call into Go block them for the call (profiler.c).
//
// We snapshot every handler in a constructor that runs before Go's (a
// prioritised .init_array entry runs before the Go runtime's plain one). After
// Go's initialisation, a handler Go replaced is given back to its owner whole
// (Go then no longer turns its own faults into panics: our Go code is small,
// runs only at startup and exit, and a fault there would be fatal anyway); a
// handler Go left in place gets back the flags its owner asked for. SIGRTMIN
// additionally gets SA_ONSTACK cleared unconditionally. VBENCH_DEBUG=1 logs
// each change. In a library built with -tags vbenchtest (VB_TEST_HOOKS),
// VBENCH_DEBUG_KEEP_ONSTACK=1 leaves SIGRTMIN alone (and only SIGRTMIN: to
// demonstrate the crash its SA_ONSTACK causes); the shipped library has no
// such switch.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "vb.h"

#define NSIG_ 65
static struct sigaction before[NSIG_];
static int have_before[NSIG_];

static sigset_t loader_mask;
static pthread_t loader;
static int loader_blocked;

void vb_add_stop_signals(sigset_t *s) {
	sigaddset(s, SIGINT);
	sigaddset(s, SIGQUIT);
	sigaddset(s, SIGTERM);
}

__attribute__((constructor(101))) static void snapshot_signals(void) {
	for (int s = 1; s < NSIG_; s++)
		if (sigaction(s, 0, &before[s]) == 0) have_before[s] = 1;
	sigset_t stops;
	sigemptyset(&stops);
	vb_add_stop_signals(&stops);
	loader = pthread_self();
	loader_blocked = pthread_sigmask(SIG_BLOCK, &stops, &loader_mask) == 0;
}

void vb_signals_unblock_stops(void) {
	if (!loader_blocked) return;
	loader_blocked = 0;
	if (!pthread_equal(pthread_self(), loader)) {
		vb_log("signals: Initialize runs on another thread than dlopen did; the loading thread keeps SIGINT/SIGQUIT/SIGTERM blocked");
		return;
	}
	pthread_sigmask(SIG_SETMASK, &loader_mask, 0);
}

static void *handler_of(const struct sigaction *sa) {
	return (sa->sa_flags & SA_SIGINFO) ? (void *)sa->sa_sigaction : (void *)sa->sa_handler;
}

void vb_signals_fix(void) {
#ifdef VB_TEST_HOOKS
	const char *k = getenv("VBENCH_DEBUG_KEEP_ONSTACK");
	int keep = k && *k && strcmp(k, "0") != 0;
#else
	const int keep = 0;
#endif
	for (int s = 1; s < NSIG_; s++) {
		if (keep && s == SIGRTMIN) {
			vb_log("VBENCH_DEBUG_KEEP_ONSTACK set: leaving SIGRTMIN flags 0x%x as the Go runtime left them", vb_sigrtmin_flags());
			continue;
		}
		if (s == SIGKILL || s == SIGSTOP) continue;
		struct sigaction now;
		if (sigaction(s, 0, &now) != 0) continue;
		void *h = handler_of(&now);
		if (h == (void *)SIG_DFL || h == (void *)SIG_IGN) continue;
		void *owner = have_before[s] ? handler_of(&before[s]) : (void *)SIG_DFL;
		if (owner != (void *)SIG_DFL && owner != h) {
			// Go replaced the owner's handler (or SIG_IGN): put it back.
			if (sigaction(s, &before[s], 0) == 0)
				vb_log("signal %d: Go's handler replaced the owner's; restored the owner's (flags 0x%x)", s, before[s].sa_flags);
			continue;
		}
		int want = now.sa_flags;
		if (owner == h)
			want = (now.sa_flags & ~SA_ONSTACK) | (before[s].sa_flags & SA_ONSTACK);
		if (s == SIGRTMIN) want &= ~SA_ONSTACK;
		if (want != now.sa_flags) {
			int old = now.sa_flags;
			now.sa_flags = want;
			if (sigaction(s, &now, 0) == 0)
				vb_log("signal %d: flags 0x%x -> 0x%x (restored the owner's SA_ONSTACK setting)", s, old, want);
		}
	}
}

// fix_at_load runs vb_signals_fix right after Go's libpreinit: a plain
// constructor, after the Go runtime's .init_array entry, still inside the
// dlopen. Go installs and alters handlers in libpreinit, and an attach loads
// us into a process under load: until Initialize's fix, a GC's activation
// signal ran on the 16 KiB alternate stack and overflowed it (SIGSEGV).
// VBENCH_DEBUG=1 logs its changes (to stderr: an attach's log is not open yet).
__attribute__((constructor)) static void fix_at_load(void) {
	const char *d = getenv("VBENCH_DEBUG");
	vb_debug = d && *d && strcmp(d, "0") != 0;
	vb_signals_fix();
	vb_debug = 0; // Initialize sets it
}

int vb_sigrtmin_flags(void) {
	struct sigaction sa;
	if (sigaction(SIGRTMIN, 0, &sa) != 0) return -1;
	return sa.sa_flags;
}
