// Logging: one line per message, straight to fd 2 (no stdio buffering).
// Every C file logs through here, so it depends on nothing of the profiler's
// but vb_debug, which Initialize sets from VBENCH_DEBUG. Cold paths only:
// never from a hook or a signal handler.
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "vb.h"

int vb_debug;
int vb_log_fd = 2; // an attach's log file (the target's stderr stays its own)

static void vlog_line(const char *fmt, va_list ap) {
	char line[1024];
	int n = snprintf(line, sizeof line, "vbench-profiler: ");
	n += vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
	if (n > (int)sizeof line - 2) n = sizeof line - 2;
	line[n++] = '\n';
	ssize_t r = write(vb_log_fd, line, n);
	(void)r;
}

void vb_log(const char *fmt, ...) {
	if (!vb_debug) return;
	va_list ap;
	va_start(ap, fmt);
	vlog_line(fmt, ap);
	va_end(ap);
}

void vb_err(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vlog_line(fmt, ap);
	va_end(ap);
}
