// Attach and detach (vbench profile --pid): the runtime loads the library
// into a running process at the diagnostics port's AttachProfiler command
// and calls InitializeForAttach with the client data vbench sent (the
// configuration, the VBENCH_* lines Initialize reads from the environment,
// and VBENCH_ATTACH_DURATION). Only the engines whose event mask is
// allowed after attach run (COR_PRF_ALLOWABLE_AFTER_ATTACH: no enter/leave
// hooks, no ObjectAllocated): sampling (THREADS, EXCEPTIONS) and
// allocation-sampling (SUSPENDS, BASIC_GC, an EventPipe session); Go's
// configuration refuses the rest. After the duration a thread of ours
// stops the engine, builds the profile and asks the runtime to detach; the
// files are written at ProfilerDetachSucceeded.
//
// The runtime unloads the library after that callback, and Go's c-shared
// runtime cannot be unloaded (its threads would run unmapped code): the
// library keeps itself loaded (RTLD_NODELETE), its Go threads idle, and
// nothing of it runs again: no timer, no thread of the engine, SIGPROF
// given back (vb_cpu_release_signal), no crash hook (never installed for an
// attach). A later attach finds it loaded and starts it again (reset).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vb.h"

int64_t vb_attach_ns;
static int attached_before;
static sigset_t runtime_mask; // the mask of the runtime's thread that completed the attach

// keep_loaded marks this library RTLD_NODELETE, so the runtime's dlclose
// after ProfilerDetachSucceeded leaves it mapped. 0: done.
static int keep_loaded(void) {
	Dl_info di;
	if (!dladdr((void *)keep_loaded, &di) || !di.dli_fname) return -1;
	void *h = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
	return h ? 0 : -1; // the extra reference is never dropped either
}

HRESULT vb_initialize_for_attach(void *self, IUnknown *unk, const void *data, uint32_t ndata) {
	(void)self;
	if (keep_loaded() != 0) {
		vb_err("attach: cannot keep the library loaded after a detach (%s); refusing to attach", dlerror());
		return E_FAIL;
	}
	if (attached_before) vb_profiler_reset();
	attached_before = 1;
	if (!data) data = "", ndata = 0; // no configuration: Go says what is missing
	HRESULT hr = vb_start(unk, data, ndata);
	if (hr == S_OK) vb_log("attach: profiling for %.3f s", (double)vb_attach_ns / 1e9);
	return hr;
}

// detach_after sleeps for the attach's duration, then stops and detaches.
// RequestProfilerDetach's second argument is how long the runtime should
// expect the profiler's code to stay in use: none of ours runs by then.
static void *detach_after(void *arg) {
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + vb_attach_ns;
	ts.tv_sec = at / 1000000000, ts.tv_nsec = at % 1000000000;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0) == EINTR) {
	}
	if (vb_attach_stop() != 0) return 0; // the process is ending: Shutdown wrote it
	// The runtime may start its detach thread from here: with the mask its
	// own threads have, not this thread's (every signal blocked).
	pthread_sigmask(SIG_SETMASK, &runtime_mask, 0);
	HRESULT hr = VCALL(vb_info, INFO_RequestProfilerDetach, RequestProfilerDetach_t)(vb_info, 100);
	if (FAILED(hr)) {
		// Stopped all the same: nothing of ours runs, the profile is written now.
		vb_err("attach: RequestProfilerDetach failed (hr=0x%08x); the profiler stays loaded, stopped", (unsigned)hr);
		vb_attach_write();
	}
	return 0;
}

// ProfilerAttachComplete: the runtime now sends the callbacks the event
// mask asks for, so the threads listed here that start later are told too.
HRESULT vb_attach_complete(void *self) {
	(void)self;
	if (vb_mode == VB_MODE_SAMPLING) vb_cpu_register_running();
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	runtime_mask = old;
	pthread_t t;
	int rc = pthread_create(&t, 0, detach_after, 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	if (rc != 0) {
		vb_err("attach: cannot start the detach thread: the profiler stays until the process ends, and writes its profile then");
		return S_OK;
	}
	pthread_detach(t);
	return S_OK;
}

// ProfilerDetachSucceeded: no thread is in the profiler's callbacks any
// more; the runtime may not be called. The held profile is written.
HRESULT vb_detach_succeeded(void *self) {
	(void)self;
	vb_attach_write();
	vb_log("attach: detached");
	return S_OK;
}

// ---- start-up through a diagnostic port (vbench profile --port)
//
// A runtime started with DOTNET_DiagnosticPorts=PATH,suspend waits for
// vbench, which sends the settings with SetEnvironmentVariable and the
// profiler with StartupProfiler: the settings are in the runtime's own
// environment, not in libc's (nor Go's), so Initialize reads them through
// ICorProfilerInfo11::GetEnvironmentVariable, and puts them in libc's for
// the C engines' own getenv.

static const char *const settings[] = {"VBENCH_MODE", "VBENCH_PROFILE_DIR", "VBENCH_INTERVAL", "VBENCH_INCLUDE",
	"VBENCH_EXCLUDE", "VBENCH_TIME_SAMPLE", "VBENCH_SAMPLING_NOINLINE", "VBENCH_MAX_STACK", "VBENCH_LINES",
	"VBENCH_PROCESSES", "VBENCH_TIMELINE", "VBENCH_TIMELINE_MIN", "VBENCH_TIMELINE_CAP", "VBENCH_DEBUG", 0};

// vb_runtime_settings is the VBENCH_* settings the runtime's environment
// holds, as KEY=VALUE lines (static; 0 when it holds no VBENCH_MODE).
const char *vb_runtime_settings(IUnknown *unk) {
	static char out[16384];
	void *info = 0;
	if (FAILED(VCALL(unk, UNK_QueryInterface, QI_t)(unk, &IID_ICorProfilerInfo12_, &info)) || !info) return 0;
	size_t n = 0;
	int mode = 0;
	for (int i = 0; settings[i]; i++) {
		WCHAR name[64], val[4096];
		size_t k = 0;
		for (; settings[i][k] && k < 63; k++) name[k] = (WCHAR)settings[i][k];
		name[k] = 0;
		ULONG len = 0;
		HRESULT hr = VCALL(info, INFO_GetEnvironmentVariable, GetEnvironmentVariable_t)(info, name, 4096, &len, val);
		if (hr != S_OK || len == 0) continue;
		char v[4096];
		size_t m = 0;
		for (; m < len && m < sizeof v - 1 && val[m]; m++) v[m] = val[m] < 0x80 ? (char)val[m] : '?'; // settings are ASCII
		v[m] = 0;
		int w = snprintf(out + n, sizeof out - n, "%s=%s\n", settings[i], v);
		if (w < 0 || (size_t)w >= sizeof out - n) break;
		n += (size_t)w;
		setenv(settings[i], v, 1);
		mode |= i == 0;
	}
	VCALL(info, UNK_Release, Release_t)(info);
	return mode ? out : 0;
}
