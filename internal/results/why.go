package results

// A Why explains an A/B pair's change: the functions (or types) that
// contributed most (Explain), what their figures are (Unit) and what part
// of each run (Scope). The runner finds it from both sides' profiles before
// any verdict exists and hands it over with the run; verdict.Apply puts it
// in the pair's judgement (Change), the one place a results file keeps it.
type Why struct {
	Explain     []Contribution
	Unit, Scope string
	Unnamed     *Unnamed // what a why in instructions could not name
	Launch      string   // how a why in instructions' launches differed from the runs (Change.ExplainLaunch)
}

// Whys are a run's whys, by the key ("workload/mode") of each pair's NEW
// cell.
type Whys map[string]Why

// WhysOf are the whys f's judgements already carry: a file judged again
// (merge, compare, report --baseline) keeps what its run found, since its
// profiles are no longer at hand.
func WhysOf(f *File) Whys {
	w := Whys{}
	for _, c := range f.Results {
		if ch := c.Compare; ch != nil && len(ch.Explain) > 0 {
			w[c.Key()] = Why{Explain: ch.Explain, Unit: ch.ExplainUnit, Scope: ch.ExplainScope, Unnamed: ch.ExplainUnnamed, Launch: ch.ExplainLaunch}
		}
	}
	return w
}

// Put gives the judgement ch the why.
func (w Why) Put(ch *Change) {
	ch.Explain, ch.ExplainUnit, ch.ExplainScope, ch.ExplainUnnamed, ch.ExplainLaunch = w.Explain, w.Unit, w.Scope, w.Unnamed, w.Launch
}
