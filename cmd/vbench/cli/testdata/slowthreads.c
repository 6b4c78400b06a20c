// Preloaded into a .NET process (TestStartupProfilerBeforeThePause): the
// caller of each of the first 6 pthread_create waits
// SLOWTHREADS_MS after the new thread starts, as a main thread
// descheduled on a busy machine right after it started the runtime's
// diagnostics server thread would, before the start-up pause.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg) {
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	static int n;
	if (!real) real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
	int rc = real(t, a, f, arg);
	const char *ms = getenv("SLOWTHREADS_MS");
	if (ms && __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED) < 6) usleep((useconds_t)atoi(ms) * 1000);
	return rc;
}
