// tick: what a directed tick costs, per tick, in CPU time of each thread
// (issue 41): a busy C loop signalled every 1 ms of wall time (w) by its
// own CLOCK_MONOTONIC timer (SIGEV_THREAD_ID), whose handler reads its CPU
// clock, as the sampling engine's directed ticks now are; (d) by a sender
// thread that sleeps to each ms, reads the loop's CPU clock and sends it
// SIGPROF with rt_tgsigqueueinfo, as the drain thread did before; (e) by
// its own timer as (w), with an empty handler: the floor of any sampler a
// timer ticks, a signal delivered and returned from and nothing else; (c)
// by its own CPU-clock timer at 1 ms, empty handler: the kernel checks such
// a timer only at its scheduler tick (CONFIG_HZ), so the signal rides an
// interrupt that happens anyway, at most one a tick (overruns count the
// rest); (0) not at all. Modes and repetitions from the arguments (default "0wd", 30);
// each line gives the loop's CPU time, the signals handled and the
// sender's CPU time. Not part of the build (testdata):
//   cc -O2 -pthread -o /tmp/tick profiler/testdata/sigcost/tick.c && /tmp/tick 0wd 40
// docs/notebook/measurements.md ("Ticks without a wake-up") gives the results.
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "busyloop.h"

static volatile int tid, done, go;
static volatile long handled, overruns;
static int64_t work_cpu;
static int mode;
static timer_t tm;

static void on_prof(int s, siginfo_t *si, void *uc) {
	(void)s, (void)uc;
	if (si->si_code == SI_TIMER && mode == 'w') { // as the engine's handler weighs a directed tick
		volatile int64_t c = ns(CLOCK_THREAD_CPUTIME_ID);
		(void)c;
	}
	handled++;
	if (mode == 'c') overruns += si->si_overrun;
}

#define WORK 100000000ull
static void *worker(void *a) {
	(void)a;
	tid = (int)syscall(SYS_gettid);
	if (mode == 'w' || mode == 'e' || mode == 'c') {
		struct sigevent ev = {0};
		ev.sigev_notify = SIGEV_THREAD_ID;
		ev.sigev_signo = SIGPROF;
		ev._sigev_un._tid = tid;
		timer_create(mode == 'c' ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ev, &tm);
		struct itimerspec its = {{0, 1000000}, {0, 1000000}};
		timer_settime(tm, 0, &its, 0);
	}
	while (!go) {}
	work_cpu = busy_loop(WORK);
	if (mode == 'w' || mode == 'e' || mode == 'c') timer_delete(tm);
	done = 1;
	return 0;
}

int main(int argc, char **argv) {
	struct sigaction sa = {0};
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, 0);
	const char *modes = argc > 1 ? argv[1] : "0wd";
	int reps = argc > 2 ? atoi(argv[2]) : 30;
	for (int rep = 0; rep < reps; rep++)
		for (const char *m = modes; *m; m++) {
			mode = *m;
			handled = overruns = 0;
			done = go = 0;
			tid = 0;
			pthread_t t;
			pthread_create(&t, 0, worker, 0);
			while (!tid) {}
			int64_t s0 = ns(CLOCK_THREAD_CPUTIME_ID);
			long sent = 0;
			go = 1;
			if (mode == 'd') {
				int64_t next = ns(CLOCK_MONOTONIC);
				pid_t pid = getpid();
				while (!done) {
					next += 1000000;
					struct timespec ts = {next / 1000000000, next % 1000000000};
					clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0);
					struct timespec c;
					clock_gettime((clockid_t)((~(unsigned)tid) << 3) | 6, &c); // the loop's CPU clock
					send_tick(pid, tid);
					sent++;
				}
			} else {
				while (!done) usleep(20000);
			}
			int64_t snd = ns(CLOCK_THREAD_CPUTIME_ID) - s0;
			pthread_join(t, 0);
			printf("%c worker %.1f ms  handled %ld  sender %.2f ms (%ld sends) overruns %ld\n", mode, work_cpu / 1e6, handled, snd / 1e6, sent, overruns);
		}
	return 0;
}
