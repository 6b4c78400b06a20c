package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"vbench/internal/safetext"
	"vbench/internal/speedscope"

	"github.com/spf13/cobra"

	"vbench/internal/atomicfile"
	"vbench/internal/attach"
	"vbench/internal/child"
	"vbench/internal/lines"
	"vbench/internal/machine"
	"vbench/internal/modes"
	"vbench/internal/profile"
	"vbench/reports/profileview"
)

func runProfile(cmd *cobra.Command, f *profileFlags, args []string) error {
	pr, err := f.check(cmd)
	if err != nil {
		return err
	}
	engine, focus, lib := pr.engine, pr.focus, pr.lib
	if linesByDefault(engine) && !cmd.Flags().Changed("lines") {
		f.settings.Lines = true
	}
	dir, unlock, err := profile.RunDir("--out", f.out)
	if err != nil {
		return usageErr(err)
	}
	defer unlock()
	stderr := cmd.ErrOrStderr()

	spec := modes.Spec{Name: modes.Mode(engine), Engine: engine, ProfilerSettings: f.settings}
	launch := attach.Launch{Spec: spec, Library: lib, RunDir: dir, Processes: f.processes}
	env := launch.Env(os.Environ())
	reasons := attach.NewProfilerLines(stderr)
	mark := machine.MarkBusy()
	code, err := child.Run(args, env, os.Stdin, cmd.OutOrStdout(), reasons)
	if err != nil {
		return usageErr(err)
	}
	busy := busyWarning(mark)

	tree, perr := profile.ReadTree(dir)
	if perr == nil {
		recordEnd(tree, code, stderr)
		resolveLines(cmd.Context(), tree, stderr)
	}
	if perr == nil && len(tree.Processes) == 0 {
		perr = fmt.Errorf("no process wrote its profile: %s", profileview.NoneWritten(tree))
	}
	if perr != nil {
		msg := noProfileText(dir, perr, reasons, tree, code, f.processes, args)
		if code == 0 {
			code = ExitFailed
		}
		return withCode(code, errors.New(msg))
	}
	if err := showProfile(cmd, f, tree, dir, code, busy, focus); err != nil {
		return err
	}
	if code != 0 {
		return withCode(code, nil)
	}
	for _, p := range tree.Processes {
		if p.SamplingStopped() { // the profiler failed: its few samples are no profile of the run
			return withCode(ExitFailed, fmt.Errorf("the sampler was blinded in pid %d (the warning above says how): its profile is not one of the whole run", p.PID))
		}
	}
	return nil
}

// showProfile writes the merged pprof file beside the profiles and shows
// them as the flags ask: the table on stderr, the JSON summary.
func showProfile(cmd *cobra.Command, f *profileFlags, tree *profile.Tree, dir string, code int, busy string, focus *profile.Focus) error {
	stderr := cmd.ErrOrStderr()
	if err := tree.WritePprofFile(filepath.Join(dir, profile.PprofFile)); err != nil {
		return fmt.Errorf("writing the merged pprof profile: %w", err)
	}
	fmt.Fprintf(stderr, "vbench: %s\n", profileview.ProfilesWritten(tree, dir))
	for _, p := range tree.Processes {
		if s := p.Timeline.Summary(); s != "" {
			fmt.Fprintf(stderr, "vbench: pid %d: %s (open it in Perfetto or speedscope: docs/timeline.md)\n", p.PID, s)
		}
	}
	if f.output != "" {
		if err := speedscope.WriteTreeFile(f.output, tree); err != nil {
			return fmt.Errorf("writing %s: %w", f.output, err)
		}
		fmt.Fprintf(stderr, "vbench: speedscope file written to %s\n", f.output)
	}
	for _, w := range profileview.ProfileWarnings(tree) {
		fmt.Fprintf(stderr, "vbench: warning: %s\n", safetext.Line(w)) // a profile's cause quotes the program
	}
	if busy != "" {
		fmt.Fprintf(stderr, "vbench: warning: %s\n", busy)
	}
	// The view narrows; the profiles and the merged pprof file keep everything.
	if tree = testView(tree, f.allFrames); tree.Processes[0].FoldedBy != nil && f.format == "table" {
		fmt.Fprintf(stderr, "vbench: %s\n", profileview.FoldedNote)
	}
	tree, err := tree.Focused(focus)
	if err != nil {
		if code == 0 {
			code = ExitUsage
		}
		return withCode(code, fmt.Errorf("%v\n(the profiles are in %s: vbench show %s --top 30 shows what they hold)", err, dir, dir))
	}
	if f.format == "table" {
		if err := profileview.TreeTop(stderr, tree, f.top); err != nil {
			return err
		}
	}
	var missing []profileview.MissingProcess
	for _, m := range tree.Missing {
		missing = append(missing, profileview.MissingProcess{Process: m.Process, Dir: m.Dir, StillRunning: child.Running(m.PID, m.Command)})
	}
	for _, m := range missing {
		fmt.Fprintf(stderr, "vbench: %s\n", m.Note())
	}
	doc := profileview.ProfileSummary(tree, dir, code, f.top, missing)
	if f.format == "json" {
		if err := profileview.WriteProfileJSON(cmd.OutOrStdout(), doc); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		if err := atomicfile.Write(f.jsonOut, 0o666, func(w io.Writer) error { return profileview.WriteProfileJSON(w, doc) }); err != nil {
			return err
		}
	}
	return nil
}

// noProfileText says why no profile was written to dir and what to do.
func noProfileText(dir string, perr error, reasons *attach.ProfilerLines, tree *profile.Tree, code int, processes string, args []string) string {
	msg := fmt.Sprintf("no profile was written to %s: %v", dir, perr)
	if r := reasons.String(); r != "" {
		msg += "\nthe profiler said:\n" + r
	} else if tree != nil && len(tree.Missing) > 0 && tree.Missing[0].Ended != nil {
		// NoneWritten said how it ended: started.json proves the profiler loaded.
	} else if tree != nil && len(tree.Missing) > 0 {
		// started.json proves the profiler loaded: say how the program ended.
		msg += fmt.Sprintf("\n(the profiler started (%s), then the program %s before writing its profile)", profile.StartedFile, childEnd(code))
	} else if processes != "" {
		msg += fmt.Sprintf("\n(--processes %q matched the command line of no process of %s: each declined the profiler; leave --processes out to profile every .NET process, or match the command line of the one you want)", processes, programName(args))
	} else {
		msg += fmt.Sprintf("\n(the runtime did not load the profiler: is %s a .NET program? see `vbench doctor`)", programName(args))
	}
	return msg
}

// busyWarning is `vbench run`'s warning about a busy machine, for the span
// the program ran since mark: its times are wall-clock, so other processes'
// CPU shows in them. A short program is judged by the load average when it
// started (the tick-based figure would be noise); "" when the machine was
// quiet or nothing can be read.
func busyWarning(mark machine.Mark) string {
	cores, measured := mark.Others()
	n := runtime.NumCPU()
	switch {
	case measured && cores > machine.BusyWarnCores:
		return fmt.Sprintf("the machine was busy: other processes kept %.1f of its %d cores busy while the program ran, so its wall-clock times are noisier than usual", cores, n)
	case !measured && cores >= 1:
		return fmt.Sprintf("the machine was busy: its load average was %.1f on %d cores when the program started, so its wall-clock times are noisier than usual", cores, n)
	}
	return ""
}

// programName is what a person calls the program argv runs: the assembly of
// `dotnet X.dll …` (dotnet itself surely is .NET), else the command.
func programName(argv []string) string {
	if filepath.Base(argv[0]) == "dotnet" && len(argv) > 1 && strings.HasSuffix(argv[1], ".dll") {
		return strconv.Quote(filepath.Base(argv[1]))
	}
	return strconv.Quote(argv[0])
}

// recordEnd writes how the program ended (code, its exit status) into the
// directory of its own process when that process wrote no profile, so that
// `vbench report DIR` can say it later; the profiler records its parent pid,
// which is vbench's for the program itself.
func recordEnd(tree *profile.Tree, code int, stderr io.Writer) {
	for i := range tree.Missing {
		m := &tree.Missing[i]
		if m.ParentPID != os.Getpid() || m.Ended != nil {
			continue
		}
		e := profile.Ended{ExitCode: code}
		if err := profile.WriteEnded(m.Dir, e); err != nil {
			fmt.Fprintf(stderr, "vbench: warning: cannot record how pid %d ended: %v\n", m.PID, err)
			continue
		}
		m.Ended = &e
	}
}

// resolveLines maps every process's line counts to source lines (from the
// program's PDBs, after the run, one helper for them all: see
// internal/lines) and writes each profile back. A failure leaves the
// profiles with method-level results and a warning that says why; no
// profile is lost.
func resolveLines(ctx context.Context, tree *profile.Tree, stderr io.Writer) {
	err := lines.ResolveAll(ctx, tree.Processes...)
	for i, p := range tree.Processes {
		if !p.HasLines() {
			continue
		}
		if err != nil {
			// Sampling asks for lines by default: say how not to (a machine
			// with the .NET runtime and no SDK cannot build the PDB reader).
			p.Warnings = append(p.Warnings, "lines: "+err.Error()+" (--lines=false profiles without them)")
		}
		if err := profile.WriteDir(filepath.Dir(tree.Paths[i]), p); err != nil { // what is in memory is shown either way
			fmt.Fprintf(stderr, "vbench: writing the profile with its lines: %v\n", err)
		}
	}
}
