package cli

import (
	"io"

	"github.com/spf13/cobra"

	"vbench/internal/profdiff"
	"vbench/reports/profileview"
)

// runAllocDiff is vbench diff of two allocation profiles: what each type
// allocates a run on each side, the type that changed most and the paths
// it grew on. Text and JSON (markdown writes the text).
func runAllocDiff(cmd *cobra.Command, f *diffFlags, format string, old, new *profdiff.Input) error {
	if old.Allocs == nil || new.Allocs == nil {
		which := "NEW"
		if old.Allocs == nil {
			which = "OLD"
		}
		return usageErrf("%s records no allocations: an allocation profile compares only with another (allocations or allocation-sampling)", which)
	}
	if format == "svg" {
		return usageErrf("-o FILE.svg: allocation profiles compare as text, markdown or json (vbench show PROFILE -o flame.svg draws each side by bytes)")
	}
	d, err := profdiff.CompareAllocs(old.Allocs, new.Allocs)
	if err != nil {
		return usageErr(err)
	}
	v := profileview.AllocDiffView{Diff: d, Old: old.About, New: new.About, Top: f.top}
	return emit(cmd, f.output, func(w io.Writer) error {
		if format == "json" {
			return profileview.WriteAllocDiffJSON(w, v)
		}
		return profileview.AllocDiffText(w, v)
	})
}
