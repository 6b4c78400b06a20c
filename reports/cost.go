package reports

import (
	"slices"
	"strings"

	"vbench/internal/modes"
)

// CostTable is the report's cost per event (docs/verdicts.md, "Cost per
// event"): a grid of workloads × the modes that have a cost in some cell,
// each cell "3.21 ns/call [3.05, 3.40]", an A/B pair's with its change per
// event after it. Modes is nil when no cell has a cost (files from before
// runs recorded their calls, suites without a none mode): no table then.
type CostTable struct {
	Modes []modes.Mode
	Rows  []CostRow
}

// CostRow is one workload's costs, one per CostTable mode: each the
// cell's parts (its cost, its A/B pair's change), none where it has neither.
type CostRow struct {
	Workload string
	Costs    [][]string
}

// Noise is WithinNoiseNote when some cell shows WithinNoise, else "".
func (t CostTable) Noise() string {
	for _, r := range t.Rows {
		for _, parts := range r.Costs {
			for _, p := range parts {
				if strings.HasPrefix(p, WithinNoise) {
					return WithinNoiseNote
				}
			}
		}
	}
	return ""
}

// CostText is a grid cell as one line of text: its parts joined by "; ",
// "" for none.
func CostText(parts []string) string { return strings.Join(parts, "; ") }

// CostTable builds the grid from the newest file's cells.
func (m *Matrix) CostTable() CostTable {
	var t CostTable
	for _, mode := range m.Modes {
		if slices.ContainsFunc(m.Workloads, func(wl string) bool { return m.Cell(wl, mode).costParts() != nil }) {
			t.Modes = append(t.Modes, mode)
		}
	}
	if t.Modes == nil {
		return t
	}
	for _, wl := range m.Workloads {
		r := CostRow{Workload: m.WorkloadLabel(wl)}
		for _, mode := range t.Modes {
			r.Costs = append(r.Costs, m.Cell(wl, mode).costParts())
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// costParts are the cell's cost per event and its A/B pair's change per
// event: "4.10 ns/call [3.90, 4.31]", "+0.52 ns/call [+0.40, +0.66] vs
// tracing@old"; nil for a missing cell or one with neither.
func (c *Cell) costParts() []string {
	if c == nil || c.Failed() {
		return nil
	}
	var parts []string
	cost, change := costTexts(c.Cell, c.Compare)
	if cost != "" {
		parts = append(parts, cost)
	}
	if change != "" {
		parts = append(parts, change+" vs "+string(c.Compare.Against))
	}
	return parts
}
