package results

// AB reports whether the change is an A/B pair's: the cell was judged
// against another cell of its own run (another mode of the same workload,
// or another workload in the same mode), not against a stored baseline.
func (ch *Change) AB() bool { return ch != nil && (ch.Against != "" || ch.AgainstWorkload != "") }

// Sides names the two cells of c's A/B pair the way a reader tells them
// apart: the modes for a pair of modes ("tracing@old", "tracing"), the
// workloads for a pair of workloads ("app-base", "app"). Empty when c was
// not judged against a cell of its own run.
func (c *Cell) Sides() (old, new string) {
	switch ch := c.Compare; {
	case ch == nil:
	case ch.Against != "":
		return string(ch.Against), string(c.Mode)
	case ch.AgainstWorkload != "":
		return ch.AgainstWorkload, c.Workload
	}
	return "", ""
}

// AgainstKey is the key ("workload/mode") of the cell c was judged against
// in its own run, "" when it was not judged against one.
func (c *Cell) AgainstKey() string {
	switch ch := c.Compare; {
	case ch == nil:
	case ch.Against != "":
		return c.Workload + "/" + string(ch.Against)
	case ch.AgainstWorkload != "":
		return ch.AgainstWorkload + "/" + string(c.Mode)
	}
	return ""
}
