package modes

import "slices"

// ProfileFormat is the file format of a profile a mode's own profiler
// writes (Spec.Profile): what reads it.
type ProfileFormat string

// The formats vbench reads another profiler's profile in.
const (
	// FormatNettrace is EventPipe's trace (DOTNET_EnableEventPipe,
	// dotnet-trace): its SampleProfiler's managed samples are read.
	FormatNettrace ProfileFormat = "nettrace"
	// FormatPprof is pprof's protobuf, gzipped or not (the Datadog and
	// Pyroscope .NET profilers, vbench's own profile.pb.gz).
	FormatPprof ProfileFormat = "pprof"
	// FormatSpeedscope is speedscope's JSON (dotnet-trace convert --format speedscope).
	FormatSpeedscope ProfileFormat = "speedscope"
	// FormatPerfScript is `perf script`'s text: each sample's header line,
	// then its frames leaf first (scripts/perf-record.sh writes it); the
	// managed frames come from the runtime's perf map
	// (DOTNET_PerfMapEnabled).
	FormatPerfScript ProfileFormat = "perf-script"
)

// ProfileFormats lists the formats, in the order messages name them.
var ProfileFormats = []ProfileFormat{FormatNettrace, FormatPprof, FormatSpeedscope, FormatPerfScript}

// Valid reports whether f is one of ProfileFormats.
func (f ProfileFormat) Valid() bool { return slices.Contains(ProfileFormats, f) }

// ProfileFile names the profile a mode's own profiler writes in each run,
// which vbench reads after the run and scores like its own engines'
// profiles: call counts (where the format has them), sampled shares and
// coverage of the tracer's hot functions.
type ProfileFile struct {
	// Path is where the run leaves it: "{rundir}" expands to the run's
	// directory; a glob pattern (*, ?, [...]) reads every file it matches
	// (one per process of a process tree) as one profile.
	Path   string        `json:"path"`
	Format ProfileFormat `json:"format"`
}
