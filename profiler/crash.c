// A profile for a program the runtime ends with abort(): an unhandled
// exception, Environment.FailFast, a stack overflow, a fatal error. None of
// these calls Shutdown or runs atexit handlers, and a SIGABRT handler never
// sees them: CoreCLR's PROCAbort puts SIGABRT back to SIG_DFL
// (SEHCleanupSignals) just before it calls abort(). What every such path does
// call is abort() itself, from libcoreclr.so, through its GOT. So:
//
//   - At Initialize, libcoreclr.so's GOT slot for abort (R_X86_64_JUMP_SLOT or
//     GLOB_DAT; the library is linked BIND_NOW, so the slot is in RELRO and
//     is made writable for the one store) is pointed at crash_abort. Nothing
//     else of the runtime changes; if the slot is not found, crashes are not
//     covered and VBENCH_DEBUG says so.
//   - crash_abort may run inside a signal handler (PROCAbort is also CoreCLR's
//     end for fatal signals it cannot handle) and on a thread holding any
//     lock, so it does only async-signal-safe things: note the thread's
//     in-flight exception class (a TLS word), write one byte to a pipe,
//     poll() the answer pipe for at most CRASH_WAIT_MS, then call the real
//     abort(): the process dies of SIGABRT exactly as it would have.
//   - A writer thread, made at Initialize with every signal blocked and
//     parked in read() on that pipe, writes the profile (complete=false, the
//     cause) through the same path as the exit fallback, then answers. If
//     the crashed thread holds something the writer needs (malloc's lock
//     after heap corruption, the sampler's suspension), the wait times out
//     and the process dies without a profile, as it did before: never a hang.
//
// A fatal signal the runtime hands back to the kernel (a fault in native
// code: a P/Invoke into a library that dereferences a bad pointer) never
// reaches abort(): CoreCLR's SIGSEGV/SIGBUS/SIGILL/SIGFPE handler finds no
// managed code to blame, puts the default action back (restore_signal) and
// returns, and the faulting instruction runs again and kills the process.
// So at Initialize a wrapper takes each of those four handlers' place, same
// flags and mask (as interrupted.c does for SIGRTMIN): it calls CoreCLR's
// handler first; when that returns and the signal's action is now SIG_DFL
// for a fault the kernel raised, the process is about to die of it, and the
// wrapper waits for the same writer as crash_abort before returning to the
// fault. A fault CoreCLR turns into an exception never returns here (it
// resumes in the exception's dispatch), and one it returns from with its
// handler still in place was handled: both behave exactly as before.
//
// A signal that stops the process (SIGINT from Ctrl-C, SIGTERM, SIGQUIT)
// ends in CoreCLR's handler for it, which puts the default action back and
// sends the signal again (SIGINT, SIGQUIT), or asks its worker thread to do
// so (SIGTERM): the process dies of the signal without Shutdown or atexit.
// So at Initialize a wrapper takes those three handlers' place too, same
// flags and mask, and waits for the same writer before it calls CoreCLR's
// handler. Reaching the wrapper means the signal reached the runtime's
// terminating handler: a program that handles Ctrl-C itself
// (Console.CancelKeyPress, PosixSignalRegistration) does so in
// System.Native's handler, installed later in front of ours, which only
// gives the signal back to ours (restores it and sends it again) when the
// program did not cancel it. The profile written there says
// "interrupted by SIGINT" (complete=false); if the process lives on after
// all (a host's own handler behind CoreCLR's), Shutdown's complete profile
// replaces it (profiler.c), so the sampler is left running for that one.
// (The writer writes once: a crash after such a survival keeps the
// interrupted profile, with its cause.)
//
// The cause names the exception class when the tracing engine's exception
// callbacks saw the crashed thread throw and no catcher found (ExceptionThrown
// without ExceptionSearchCatcherFound); the other engines do not ask for
// exception callbacks (their cost on a throwing program would be the
// profiler's, not the program's), so they say only that the runtime aborted.
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "vb.h"

// How long a crashing thread waits for the profile. Writing takes
// milliseconds to a few seconds for very large trees; the bound only
// matters when the writer is stuck, which then costs this much once.
#define CRASH_WAIT_MS 20000

// The class of the exception the thread threw and no catcher was found for
// (yet); 0 otherwise. Tracing only (the exception callbacks).
static __thread ClassID exc_class __attribute__((tls_model("initial-exec")));

void vb_crash_thrown(ObjectID obj) {
	ClassID c = 0;
	if (FAILED(VCALL(vb_info, INFO_GetClassFromObject, GetClassFromObject_t)(vb_info, obj, &c))) c = 0;
	exc_class = c;
}
void vb_crash_caught(void) { exc_class = 0; }

static int wake[2] = {-1, -1}, answer[2] = {-1, -1};
static pthread_t writer_thread;
static int taken;
static ClassID crash_class;
static void (*write_profile)(const char *cause, int interrupt);

// The fatal signal that ends the process (0: the runtime aborted), and the
// address it faulted at.
static int crash_signal;
static uintptr_t crash_addr;

// crash_wait has the writer write the profile, once, and waits for it.
// Async-signal-safe.
static void crash_wait(int sig, uintptr_t addr) {
	if (wake[1] < 0 || pthread_equal(pthread_self(), writer_thread)) return;
	if (!__atomic_exchange_n(&taken, 1, __ATOMIC_ACQ_REL)) {
		__atomic_store_n(&crash_class, exc_class, __ATOMIC_RELEASE);
		__atomic_store_n(&crash_addr, addr, __ATOMIC_RELAXED);
		__atomic_store_n(&crash_signal, sig, __ATOMIC_RELEASE);
		char c = 1;
		ssize_t r = write(wake[1], &c, 1);
		(void)r;
	}
	// Every dying thread waits for the one profile: the first to return
	// would end the process under the writer.
	struct pollfd p = {answer[0], POLLIN, 0};
	while (poll(&p, 1, CRASH_WAIT_MS) < 0 && errno == EINTR) {
	}
}

static void crash_abort(void) {
	crash_wait(0, 0);
	abort(); // our own reference: glibc's abort, not the hooked slot
}

// ---- fatal signals CoreCLR hands back to the kernel
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
static struct sigaction clr_fault[65]; // CoreCLR's handlers, by signal

// chain calls the handler a wrapper sits in front of.
static void chain(const struct sigaction *h, int sig, siginfo_t *si, void *uc) {
	if (h->sa_flags & SA_SIGINFO)
		h->sa_sigaction(sig, si, uc);
	else if (h->sa_handler != SIG_DFL && h->sa_handler != SIG_IGN)
		h->sa_handler(sig);
}

static void fault_wrapper(int sig, siginfo_t *si, void *uc) {
	int saved = errno;
	chain(&clr_fault[sig], sig, si, uc);
	struct sigaction now;
	// si_code > 0: the kernel raised it, so returning re-runs the fault.
	if (si && si->si_code > 0 && sigaction(sig, 0, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL)
		crash_wait(sig, (uintptr_t)si->si_addr);
	errno = saved;
}

// wrap puts wrapper in front of the runtime's handler of each of n signals,
// same flags and mask, keeping the runtime's in saved[sig]. A signal with no
// SA_SIGINFO handler (SIG_DFL, SIG_IGN: not the runtime's) is left alone.
static void wrap(const int *sigs, size_t n, struct sigaction *saved, void (*wrapper)(int, siginfo_t *, void *)) {
	for (size_t i = 0; i < n; i++) {
		int sig = sigs[i];
		struct sigaction now;
		if (sigaction(sig, 0, &now) != 0 || !(now.sa_flags & SA_SIGINFO) || now.sa_sigaction == wrapper) {
			vb_log("crash: signal %d has no runtime handler to sit in front of: it ends the process without a profile", sig);
			continue;
		}
		saved[sig] = now;
		now.sa_sigaction = wrapper;
		if (sigaction(sig, &now, 0) != 0) vb_log("crash: cannot wrap signal %d's handler: it ends the process without a profile", sig);
	}
}

// ---- signals that stop the process: write first, then CoreCLR's handler
static const int stop_signals[] = {SIGINT, SIGQUIT, SIGTERM};
static struct sigaction clr_stop[65];

static void stop_wrapper(int sig, siginfo_t *si, void *uc) {
	int saved = errno;
	crash_wait(sig, 0);
	errno = saved;
	chain(&clr_stop[sig], sig, si, uc);
}

static int is_stop(int sig) { return sig == SIGINT || sig == SIGQUIT || sig == SIGTERM; }

static const char *signal_name(int sig) {
	switch (sig) {
	case SIGSEGV: return "SIGSEGV (segmentation fault)";
	case SIGBUS: return "SIGBUS (bus error)";
	case SIGILL: return "SIGILL (illegal instruction)";
	case SIGFPE: return "SIGFPE (arithmetic fault)";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGTERM: return "SIGTERM";
	}
	return "a fatal signal";
}

static void *writer(void *arg) {
	(void)arg;
	char c;
	ssize_t r;
	while ((r = read(wake[0], &c, 1)) < 0 && errno == EINTR) {
	}
	if (r != 1) return 0;
	char cause[512], name[400];
	ClassID cls = __atomic_load_n(&crash_class, __ATOMIC_ACQUIRE);
	int sig = __atomic_load_n(&crash_signal, __ATOMIC_ACQUIRE);
	if (is_stop(sig))
		snprintf(cause, sizeof cause, "interrupted by %s", signal_name(sig));
	else if (sig)
		snprintf(cause, sizeof cause, "fatal signal %s at address %#lx outside managed code", signal_name(sig), (unsigned long)__atomic_load_n(&crash_addr, __ATOMIC_RELAXED));
	else if (cls && vb_class_name(cls, name, sizeof name) == 0)
		snprintf(cause, sizeof cause, "unhandled exception %s", name);
	else if (vb_mode == VB_MODE_TRACING)
		snprintf(cause, sizeof cause, "runtime abort (SIGABRT): Environment.FailFast or a fatal runtime error");
	else
		snprintf(cause, sizeof cause, "runtime abort (SIGABRT): an unhandled exception, Environment.FailFast or a fatal runtime error");
	vb_log("crash: writing the profile (%s)", cause);
	write_profile(cause, is_stop(sig));
	r = write(answer[1], &c, 1);
	return 0;
}

// ---- libcoreclr.so's GOT slot for abort
typedef struct {
	void **slot;
	uintptr_t relro_lo, relro_hi;
} found_slot;

static uintptr_t dyn_ptr(uintptr_t base, uintptr_t p) { return p < base ? p + base : p; } // glibc relocates most d_ptr in place

static void **scan_relocs(uintptr_t base, const Elf64_Rela *r, size_t bytes, const Elf64_Sym *syms, const char *strs) {
	for (size_t i = 0; i < bytes / sizeof *r; i++) {
		unsigned type = ELF64_R_TYPE(r[i].r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
		if (strcmp(strs + syms[ELF64_R_SYM(r[i].r_info)].st_name, "abort") == 0) return (void **)(base + r[i].r_offset);
	}
	return 0;
}

static int find_abort_slot(struct dl_phdr_info *info, size_t size, void *data) {
	(void)size;
	const char *n = info->dlpi_name, *slash = n ? strrchr(n, '/') : 0;
	if (!n || strcmp(slash ? slash + 1 : n, "libcoreclr.so") != 0) return 0;
	found_slot *out = data;
	uintptr_t base = info->dlpi_addr;
	const Elf64_Dyn *dyn = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(base + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) out->relro_lo = base + ph->p_vaddr, out->relro_hi = base + ph->p_vaddr + ph->p_memsz;
	}
	if (!dyn) return 1;
	const Elf64_Sym *syms = 0;
	const char *strs = 0;
	const Elf64_Rela *jmprel = 0, *rela = 0;
	size_t jmpsz = 0, relasz = 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB: syms = (const Elf64_Sym *)dyn_ptr(base, dyn->d_un.d_ptr); break;
		case DT_STRTAB: strs = (const char *)dyn_ptr(base, dyn->d_un.d_ptr); break;
		case DT_JMPREL: jmprel = (const Elf64_Rela *)dyn_ptr(base, dyn->d_un.d_ptr); break;
		case DT_PLTRELSZ: jmpsz = dyn->d_un.d_val; break;
		case DT_RELA: rela = (const Elf64_Rela *)dyn_ptr(base, dyn->d_un.d_ptr); break;
		case DT_RELASZ: relasz = dyn->d_un.d_val; break;
		}
	}
	if (!syms || !strs) return 1;
	if (jmprel) out->slot = scan_relocs(base, jmprel, jmpsz, syms, strs);
	if (!out->slot && rela) out->slot = scan_relocs(base, rela, relasz, syms, strs);
	return 1;
}

static int hook_abort(void) {
	found_slot f = {0};
	dl_iterate_phdr(find_abort_slot, &f);
	if (!f.slot) {
		vb_log("crash: libcoreclr.so's abort slot not found: a crash loses the profile");
		return -1;
	}
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)f.slot & ~(uintptr_t)(page - 1);
	int relro = (uintptr_t)f.slot >= f.relro_lo && (uintptr_t)f.slot < f.relro_hi;
	if (relro && mprotect((void *)lo, page, PROT_READ | PROT_WRITE) != 0) {
		vb_log("crash: cannot unprotect libcoreclr.so's abort slot: a crash loses the profile");
		return -1;
	}
	__atomic_store_n(f.slot, (void *)crash_abort, __ATOMIC_RELEASE);
	if (relro) mprotect((void *)lo, page, PROT_READ);
	vb_log("crash: libcoreclr.so's abort() now writes the profile first (slot %p%s)", (void *)f.slot, relro ? ", RELRO" : "");
	return 0;
}

int vb_crash_init(void (*write)(const char *cause, int interrupt)) {
	write_profile = write;
	if (pipe2(wake, O_CLOEXEC) != 0) return -1;
	if (pipe2(answer, O_CLOEXEC) != 0) {
		close(wake[0]), close(wake[1]);
		wake[0] = wake[1] = -1;
		return -1;
	}
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&writer_thread, 0, writer, 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	if (rc != 0) {
		close(wake[0]), close(wake[1]), close(answer[0]), close(answer[1]);
		wake[0] = wake[1] = -1;
		vb_log("crash: cannot start the writer thread: a crash loses the profile");
		return -1;
	}
	wrap(fault_signals, sizeof fault_signals / sizeof *fault_signals, clr_fault, fault_wrapper);
	// A stop signal inherited as SIG_IGN gets no runtime handler (and cannot
	// end the process): left alone.
	wrap(stop_signals, sizeof stop_signals / sizeof *stop_signals, clr_stop, stop_wrapper);
	return hook_abort();
}
