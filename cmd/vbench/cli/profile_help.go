package cli

import (
	"vbench/reports/profileview"
)

// profileLong is `vbench profile --help`: what is profiled, what is shown,
// what is written, and how it exits.
var profileLong = `profile runs COMMAND (any command that starts a .NET 8+ process, e.g.
"dotnet app.dll", or "dotnet test") with the vbench profiler attached and
shows the top functions: the table vbench show PROFILE starts with.

Every .NET process COMMAND starts loads the profiler (dotnet test: the SDK's
processes, then the test host; an application's workers) and writes its own
profile into --out: <pid>/profile.json and <pid>/profile.pb.gz per process.
vbench then writes profile.pb.gz there, every process merged (each sample
labelled with its pid: go tool pprof -tagfocus pid=N for one). --processes
REGEXP profiles only the processes whose command line matches it (unanchored
Go regexp, on the arguments joined by spaces: --processes testhost for a test
run's test host only); the others run unprofiled, without a word.

Modes: tracing (every call of user code: exact counts, and wall times measured
on every call of rarely called paths and on a random sample of ~1 in 16 calls
of hot ones; --time-sample 1 times every call), instrumentation (the same
exact counts and times, counted by rewriting the IL of the selected methods
instead of enter/leave hooks, so framework code keeps its precompiled code;
methods it cannot rewrite are listed in the profile as skipped), sampling
(each thread's stack every --interval of its CPU time, by a signal to that
thread alone: the runtime is never stopped; a waiting thread's stack is
weighed by the time it waits; the JIT's inlined methods count as their
caller unless --no-inline), suspend-sampling (the sampler before it: every
--interval the runtime is suspended and every thread's stack snapshotted,
up to --max-stack frames), null (the hooks, doing nothing: the floor of any
enter/leave tracer). A flag the mode does not read (--interval under
tracing) is refused rather than ignored.

--include and --exclude choose what is profiled, not what is shown: by
default every function of user code is, framework code (System.*,
Microsoft.*) is not. They take assembly or namespace patterns (glob '*'):
--include adds framework code (--include System.Text.Json; --include '*'
profiles everything), --exclude leaves code out. Explicit excludes win over
includes, includes over the default exclusion of framework code.

dotnet test: the table shows the test's own code. Framework and test-runner
frames (System, Microsoft, xunit, NUnit, MSTest, testhost, vstest,
Newtonsoft.Json, NuGet, MSBuild) are folded into the test code that called
them (their time is their caller's) and the test host comes first;
--all-frames shows every frame. The profiles keep every frame.

Source lines: under sampling each sample also keeps its source line, from
the program's PDBs, mapped after the run by a small .NET helper (go tool
pprof -list FUNC; vbench show DIR -o source.html); --lines=false leaves them
out. Under instrumentation --lines counts every line's executions: off unless
asked, since it counts every basic block. An attach (--pid) keeps no lines.

--focus PATTERN narrows what is shown, not what is profiled: the top table
lists only the matching functions (namespace, type, method or assembly, glob
'*'; a pattern without '*' also matches the names under it), and the JSON
summary too; vbench show DIR --focus draws their call trees and flame
graph. The profiles on disk keep everything.

The program's stdin, stdout and stderr are its own: stdout is passed through
byte for byte. vbench prints its table and messages on stderr (the table has a
pid column when several processes were profiled). --json FILE writes one JSON
object to FILE (atomically); --format json prints it on stdout after the
program's own output:
` + profileview.ProfileJSONOutline + `"functions" is summed over every process (same name and module), each
process's own list is under "processes"; both hold the top --top functions,
by exclusive wall-clock time or exclusive samples (callers are direct callers, "<root>"
when the caller is not profiled). Every function is in profile.json.
"missing" names the processes that started profiling and wrote no profile
(killed before they could, or still running when COMMAND exited).

--out must not hold another run's profiles (vbench refuses it: two runs never
mix); without --out a new temporary directory is used.

vbench exits with the program's own exit code (128+n if it died of signal n);
SIGINT and SIGTERM are forwarded to it. A program stopped that way (Ctrl-C,
kill) keeps its profile: written as the signal ends it, marked incomplete
("interrupted by SIGINT"); one that handles Ctrl-C itself and exits normally
gets its complete profile. If the profiler library is missing or
unusable vbench exits 2 without running anything; if the program ran but no
process wrote a profile (the runtime declined the profiler, COMMAND is not a
.NET program, or --processes matched nothing) vbench says why and exits 3 (or
the program's code, if non-zero). It exits 3 too when the sampler was blinded:
the program took SIGPROF, the sampling engine's signal, and the profile says
when and how (incomplete, "sampling stopped …").`
