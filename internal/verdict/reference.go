package verdict

import "vbench/internal/results"

// ExplainReference is the cell c is judged against in its own run (the OLD
// side of an A/B pair), nil when c is not the NEW side of one: the pairing
// abTests judges, for what compares the pair's profiles (the runner's
// explain, the report's differential flame graph). The one place they look
// it up.
func ExplainReference(f *results.File, c *results.Cell) *results.Cell {
	against := f.ModeSpec(c.Mode).Against
	if against == "" {
		return nil
	}
	return f.Find(c.Workload, against)
}
