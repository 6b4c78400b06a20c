// Package modes says what a mode is, in one place: how a cell's workload is
// run. It holds the mode names (the built-in ones and the rules for the
// names a suite gives), the vbench profiler's engines, the definition of a
// mode (Spec: an engine with its settings, another build of the profiler,
// an environment, the mode it is judged against), the A/B run's OLD-build
// twins ("tracing@old"), and the profiler's settings with the values it
// accepts, checked by one Validate that the suite reader, `vbench profile`,
// the profiler itself and attach all use.
//
// It imports nothing of vbench's own, so that every other package (the
// c-shared profiler included) may use it without pulling in the harness.
//
// Duration lives here because it is the type of a mode's interval. Metric
// does not: it is a workload's choice of which number of a results file's
// run is "the time" (it reads a results.Run), so it stays in results.
package modes
