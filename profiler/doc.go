// Command profiler is the vbench .NET profiler, built with
// -buildmode=c-shared into bin/libvbenchprof.so and loaded by CoreCLR through
// CORECLR_ENABLE_PROFILING=1, CORECLR_PROFILER={8C2F5D8A-6C1E-4B7A-9A57-3F0E2B1D7C41}
// (attach.CLSID) and CORECLR_PROFILER_PATH. It implements the CLR Profiling
// API by hand: IClassFactory and ICorProfilerCallback3 as C vtables
// (profiler.c), calls into ICorProfilerInfo10 and IMetaDataImport2 through
// hand-declared slots and function types (com.h).
//
// # Files
//
// The C core, one job per file; declarations shared between files are in
// vb.h, the COM slots, function types and GUIDs in com.h and com.c.
//
//   - profiler.c: the class factory, the ICorProfilerCallback3 vtable and
//     the callbacks, Initialize and Shutdown, the trampoline into Go.
//   - hooks.S, hot.c: the hot path (the hook stubs, their C fast path, the
//     instrumentation engine's counting functions); tree.c: its cold half
//     (the arena, a thread's tree, the thread list, CPU time).
//   - names.c: a function's record, name and filter verdict, resolved once.
//   - instr.c: the instrumentation engine's dealings with the runtime (which
//     methods, their metadata, the new body); il.c: IL bodies decoded and
//     rewritten, in named steps; ilsig.c: signature blobs.
//   - suspend_sampling.c: suspend-sampling's thread; interrupted.c: its
//     SIGRTMIN wrapper that finds the leaf a suspension hid.
//   - sampling.c: the sampling engine's design, SIGPROF taken and checked,
//     start and stop; its parts, one job a file, share sampling.h:
//     sampling_threads.c (the thread registry), sampling_timers.c (the
//     ticks), sampling_handler.c (the SIGPROF handler), sampling_ipcache.c
//     (IP to method), sampling_prolog.c (a frameless method's frame, from
//     its prolog), sampling_frameless.c (a walk into methods, with the
//     frames the chain hides), sampling_drain.c (the drain thread),
//     sampling_waits.c (a waiting thread's ticks).
//   - alloc.c: the allocation engines' per-thread (type, path) tables, the
//     ObjectAllocated callback and its frame-pointer walk (fpwalk.h, the
//     sampling handler's too), the IPs resolved at the write; allocsample.c: allocation-sampling's EventPipe session
//     and EventPipeEventDelivered; gc.c: each GC's generation, reason and
//     pause; allocsnap.go: the tables and GCs into the profile.
//   - timeline.c, timeline.go (VBENCH_TIMELINE=1): the timeline's cold half
//     and its writer. Under tracing other stubs (hooks.S vb_tl_*) send every
//     call to C (hot.c vb_tl_enter/leave: the tree's work plus one 24-byte
//     event in the thread's own buffer, reserved at its first call; a call
//     shorter than the minimum is given back at its leave; the cap taken
//     4096 events at a time by one atomic add); the allocation engines add
//     one event per object in alloc.c; the samplers one per sample
//     (vb_tl_sample: the drain or suspend-sampling's thread appends the
//     TSC the SIGPROF handler read, the leaf node, the weight); GCs
//     (gc.c), JIT compilations and exceptions are recorded by their
//     callbacks. Drained once, at the write, into timeline.json (Chrome
//     trace-event JSON).
//   - attach.c: attach and detach (vbench profile --pid; docs/attach.md):
//     InitializeForAttach with the configuration in the client data, the
//     threads already running registered, the library kept loaded
//     (RTLD_NODELETE: Go's runtime cannot be unloaded), and after the
//     duration the engine stopped, SIGPROF given back, RequestProfilerDetach,
//     the profile written at ProfilerDetachSucceeded.
//   - signals.c: the signal handlers Go's runtime changed, put back.
//   - crash.c: the profile of a process the runtime aborts (below).
//   - state.c (the mode, the runtime's ICorProfilerInfo10, the interval),
//     log.c, clock.c: what every file uses. They depend on no other file, and
//     no file depends on profiler.c: the files call each other in no cycle
//     but the hot path's own (a thread's first enter makes its tree in tree.c,
//     which then enters through hot.c).
//   - bench.c (-tags vbenchtest): hook microbenchmarks; slow.h (-tags
//     vbenchslow): the deliberately slow enter hook.
//
// # Engines (VBENCH_MODE)
//
//   - tracing: FunctionEnter3/Leave3/Tailcall3 fast-path hooks (hooks.S, hot.c)
//     on the functions FunctionIDMapper2 chose; per thread a call tree with an
//     active-node pointer (per node: calls, inclusive and child TSC ticks).
//   - sampling (cpu-sampling, its name while it was experimental): per-thread
//     CPU-clock timers send SIGPROF to the thread they time (a busy thread
//     gets a wall-clock timer instead, exact to the interval, whose ticks the
//     handler weighs by its own CPU clock); the handler walks that thread's frame pointers from the signal context into
//     a per-thread ring; a drain thread resolves IPs with GetFunctionFromIP
//     and merges into per-thread sampling trees (sampling*.c). A waiting
//     thread is walked once per wait and weighed by the time it waits. The
//     runtime is never suspended. A program that takes SIGPROF later (its
//     own handler, SIG_IGN) is seen by the drain, which stops every tick and
//     marks the profile incomplete; SIGPROF is never taken back.
//   - suspend-sampling, the sampler before it: a profiler-owned C thread
//     every VBENCH_INTERVAL (default 10ms, 1ms..1s) does SuspendRuntime,
//     EnumThreads, DoStackSnapshot per thread,
//     ResumeRuntime, and merges each stack into that thread's sampling tree
//     (suspend_sampling.c). All frames are kept; the user-code filter is applied when
//     the profile is written. Each stack is cut back to where the suspension
//     first interrupted the thread, not where it reached a GC safe point
//     (interrupted.c), so methods without a safe point get their samples.
//   - allocations: ObjectAllocated (COR_PRF_ENABLE_OBJECT_ALLOCATED, set at
//     Initialize) on the allocating thread: the object's size
//     (GetObjectSize2), a frame-pointer walk from the callback's own frame
//     (64 return addresses at most; the return address into the allocating
//     method, which the runtime's allocation stub keeps outside any frame
//     record beside a copy of the method's frame pointer, is taken from
//     there), and one entry of the thread's own open-addressed table keyed
//     by type and path (no lock, no allocation, no system call but the
//     first time on a thread). IPs are resolved with GetFunctionFromIP once
//     each, at the write, outside any callback. Full tables fold objects
//     into a shared by-type table (atomic adds) and the profile says so.
//   - allocation-sampling: Initialize (runtime 10+, ICorProfilerInfo12)
//     starts an EventPipe session for the runtime provider's
//     AllocationSampling keyword; the library answers ICorProfilerCallback10
//     in this mode only; EventPipeEventDelivered runs synchronously on the
//     allocating thread and adds each AllocationSampled event to the same
//     tables, weighed s/(1-q^s) bytes and 1/(1-q^s) objects (q = 1-1/102400,
//     RandomizedAllocationSampling.md's weighted-sample estimator), with the
//     runtime's stack for the event, else the same walk.
//     Both allocation engines also record every GC (COR_PRF_HIGH_BASIC_GC,
//     COR_PRF_MONITOR_SUSPENDS): generation, reason, the suspension's pause.
//   - null: the same mapper, inlining veto and hook registration as tracing,
//     with hooks that just return: the floor any enter/leave tracer pays.
//   - instrumentation: no hooks; the IL of each selected method is rewritten
//     at JITCompilationStarted (instr.c, il.c, ilsig.c) so that the method
//     counts and times itself into the same per-thread trees: one native call
//     per entry returns the thread's tree, the rest of the enter and the
//     whole exit are IL; the body runs in a try/fault whose handler closes
//     the frame when an exception leaves it. Selected methods' precompiled
//     (ReadyToRun) code is refused one method at a time; everything else
//     keeps it.
//
// # Threading and signals
//
// Go's runtime in a c-shared library adds SA_ONSTACK to every signal handler
// already installed when it initialises (golang/go#78883), including
// CoreCLR's SIGRTMIN activation handler used to suspend threads for GC; that
// handler then runs on the thread's 16 KiB alternate stack and can overflow
// it (dotnet/runtime#127320, #110368). The design:
//
//  1. signals.c snapshots every handler in a constructor that runs before the
//     Go runtime's; Initialize first calls a trivial Go export (which blocks
//     until Go is initialised), then restores the flags of every handler Go
//     left in place to what its owner asked for, and clears SA_ONSTACK on
//     SIGRTMIN. On .NET 10 that restores signals 2, 3, 4, 5, 6, 15 and 34
//     (SIGRTMIN) from flags 0x1c000004 to 0x14000004, and CoreCLR's own
//     handlers for 7, 8, 11 and 13 (see 5). VBENCH_DEBUG=1 logs each change;
//     in a build with -tags vbenchtest, VBENCH_DEBUG_KEEP_ONSTACK=1 leaves
//     SIGRTMIN (only it) as Go left it, to demonstrate the crash.
//  2. Every entry point CoreCLR calls is C or assembly. Go runs only in three
//     cold places: Initialize (wait for the runtime, read the configuration,
//     make the process's directory), Shutdown, and the exit-path fallback
//     (write the profile). Each goes
//     through a C trampoline that blocks SIGRTMIN (and the sampling engine's
//     SIGPROF) with pthread_sigmask around
//     the call, so CoreCLR's suspension signal never lands on a goroutine
//     stack. Go's own threads are not managed threads and are never signalled
//     by CoreCLR. The process-wide signals that stop the program (SIGINT,
//     SIGQUIT, SIGTERM: the kernel picks any thread not blocking them) are
//     blocked on every Go thread (signals.c: they inherit the loading
//     thread's mask at dlopen) and by the trampoline. Name resolution, filtering (FunctionIDMapper2, JITInlining),
//     the exception callbacks and the IL rewriting (the JIT callbacks) are C
//     and never enter Go.
//  3. The hot path (enter/leave/tailcall) is assembly plus C compiled for
//     general-purpose registers only: it never allocates, locks, makes a
//     system call or enters Go. The instrumentation engine's native
//     functions (hot.c, vb_i*) follow the same rules; rewritten code calls
//     them with an unmanaged calli that suppresses the GC transition, so they
//     are plain SysV calls. The client ID FunctionIDMapper2 returns is the
//     function's own record, so the hook needs no lookup. The per-thread tree
//     hangs off an initial-exec __thread pointer; nodes come from an 8 GiB
//     MAP_NORESERVE arena, carved into 64 KiB per-thread chunks with one
//     atomic add. Time is rdtsc, calibrated against CLOCK_MONOTONIC over the
//     profile's lifetime. Child lookup is a last-hit pointer plus a sibling
//     list that is only ever prepended to (release stores), so the writer can
//     read trees while threads still run.
//  4. The sampler is a C pthread with every signal blocked; it is stopped and
//     joined before the profile is written and never touches the CLR after
//     Shutdown returns. In sampling mode a C wrapper (interrupted.c) sits in
//     front of CoreCLR's SIGRTMIN handler, same flags and mask: it notes the
//     interrupted context and what the handler changed on the stack.
//  5. Go also replaces the synchronous signals' handlers (SIGSEGV, SIGBUS,
//     SIGFPE, SIGPIPE) and forwards foreign faults; CoreCLR's conversion of
//     faults into NullReference/DivideByZero exceptions does not survive that
//     detour (the first DivideByZeroException killed the process with SIGFPE
//     in every mode). signals.c gives every handler Go replaced back to its
//     owner, whole (Go then no longer turns its own faults into panics: our
//     Go code is small, runs only at startup and exit, and a fault there
//     would be fatal anyway). TestHardwareFaultsBecomeExceptions runs faults
//     under every engine; the stress program dereferences null every round.
//
// The proof is scripts/stress-profiler.sh and, for a service's start-up
// (threads made, handlers installed, code JIT-compiled while ticks
// arrive), scripts/startup-stress.sh (both make stress), results in
// docs/notebook/profiler.md; TestSigrtminOnstackCleared reads SIGRTMIN's flags from
// inside the profilee under every engine.
//
// Exceptions: ExceptionUnwindFunctionEnter/Leave pop the frame of a hooked
// function the unwinder removed; a leave whose function is not the active
// frame closes the frames above it (a frame we were never told about is
// closed at the same instant). Tail calls: Tailcall3 is the leave of the
// current frame. Threads: a tree is created on a thread's first hooked call,
// pushed on a lock-free list; a pthread key destructor records the thread's
// final CPU time, live threads are read through their per-thread CPU clock.
//
// Crashes: an unhandled exception, Environment.FailFast, a stack overflow or
// a fatal runtime error end in CoreCLR's PROCAbort, which calls no profiler
// callback and no atexit handler and resets SIGABRT to SIG_DFL before it
// calls abort(), so no SIGABRT handler of ours would run either. crash.c
// points libcoreclr.so's GOT slot for abort at a hook that does only
// async-signal-safe things (PROCAbort can run inside a signal handler, on a
// thread holding any lock): it notes the thread's in-flight exception class
// (TLS), writes a byte to a pipe and polls for the answer, 20 s at most. The
// profile is written by a C writer thread made at Initialize with every
// signal blocked, parked in read() until then, through the exit path's
// trampoline into Go (complete=false, the cause); then the real abort()
// runs and the process dies of SIGABRT as it would have. Writing from the
// handler itself would not be safe; a periodic writer would lose the calls
// of the last period. If the writer is stuck on something the crashed thread
// holds (malloc after heap corruption, a sampler tick suspending the
// runtime: the crash writer waits 2 s for the sampler, not for ever), the
// wait ends and the process dies without a profile, as it did before.
// A fault in native code that CoreCLR hands back to the kernel (it puts
// SIG_DFL back and returns, so the fault re-runs and kills) is caught by a
// wrapper in front of CoreCLR's SIGSEGV/SIGBUS/SIGILL/SIGFPE handlers,
// which waits for the same writer when it sees that (crash.c). SIGINT,
// SIGQUIT and SIGTERM that reach the runtime's handler (which ends the
// process with the signal: Ctrl-C, kill) go through a wrapper that waits for
// the writer first; a program that cancels them never reaches it (crash.c
// says why), and Shutdown replaces such a profile should the process live
// on. SIGKILL is not covered.
//
// # Names
//
// Every function resolves once to Namespace.Type.Method: nested types joined
// with '.', generic parameters from metadata as <T> or <TKey,TValue> on the
// type or method (Ns.Box<T>.Get, Ns.Util.Identity<T>), constructors
// Ns.Type..ctor. All instantiations of a generic method (and overloads) share
// one name and are summed. This is a contract with the workloads and the
// harness; see docs/profiler.md.
//
// # Filter
//
// VBENCH_INCLUDE and VBENCH_EXCLUDE are comma-separated glob patterns ('*'
// matches any run of characters), each matched against the assembly simple
// name and the namespace-qualified type name; a pattern without '*' also
// matches every type in that namespace ("MyApp" matches MyApp.Sub.T). A
// function is profiled unless an exclude pattern matches; else if an include
// pattern matches; else unless it is framework code (assemblies System,
// System.*, Microsoft.*, mscorlib, netstandard; types System.*, Microsoft.*,
// Internal.*) or vbench's own startup hook (assembly VbenchStartupHook, which
// vbench run adds to every .NET run). So: explicit exclude > include >
// default exclusion.
// VBENCH_INCLUDE='*' profiles everything.
//
// # Output
//
// Every .NET process the profiling environment reaches (a process tree:
// dotnet test, an application's workers) writes into a directory of its own,
// VBENCH_PROFILE_DIR/<pid>/ (see package profile, ReadTree): at the end of a
// successful Initialize the library makes it (an exclusive mkdir) and writes
// started.json (pid, parent pid, command line, mode, runtime, start), so a
// process killed before it writes is still known; at Shutdown, or from an
// atexit handler when Shutdown never comes (exit paths), or from the crash
// writer when the runtime aborts (complete=false and a cause then), it writes profile.pb.gz (pprof) and then
// profile.json, each atomically. A missing or unwritable directory is
// reported once on stderr at startup and nothing is written; a bad
// VBENCH_MODE, VBENCH_INTERVAL or VBENCH_PROCESSES makes Initialize fail (the
// program runs unprofiled) after a one-line "vbench-profiler: ..." reason on
// stderr. A process whose command line VBENCH_PROCESSES (a regexp) does not
// match declines with CORPROF_E_PROFILER_CANCEL_ACTIVATION: no file, no word.
package main
