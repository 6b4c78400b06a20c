package reports

import (
	"slices"

	"vbench/internal/modes"
)

// CostTable is the report's cost per event (docs/harness.md, "Cost per
// event"): a grid of workloads × the modes that have a cost in some cell,
// each cell "3.21 ns/call [3.05, 3.40]", an A/B pair's with its change per
// event after it. Modes is nil when no cell has a cost (files from before
// runs recorded their calls, suites without a none mode): no table then.
type CostTable struct {
	Modes []modes.Mode
	Rows  []CostRow
}

// CostRow is one workload's costs, one text per CostTable mode ("" where
// that cell has none).
type CostRow struct {
	Workload string
	Costs    []string
}

// CostTable builds the grid from the newest file's cells.
func (m *Matrix) CostTable() CostTable {
	var t CostTable
	for _, mode := range m.Modes {
		if slices.ContainsFunc(m.Workloads, func(wl string) bool { return m.Cell(wl, mode).costText() != "" }) {
			t.Modes = append(t.Modes, mode)
		}
	}
	if t.Modes == nil {
		return t
	}
	for _, wl := range m.Workloads {
		r := CostRow{Workload: m.WorkloadLabel(wl)}
		for _, mode := range t.Modes {
			r.Costs = append(r.Costs, m.Cell(wl, mode).costText())
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// costText is the cell's cost per event, with its A/B pair's change per
// event after it: "4.10 ns/call [3.90, 4.31]; +0.52 ns/call [+0.40, +0.66]
// vs tracing@old". "" for a missing cell or one without a cost.
func (c *Cell) costText() string {
	if c == nil || c.Failed() {
		return ""
	}
	cost, change := costTexts(c.Cell, c.Compare)
	if change != "" {
		if cost != "" {
			cost += "; "
		}
		cost += change + " vs " + string(c.Compare.Against)
	}
	return cost
}
