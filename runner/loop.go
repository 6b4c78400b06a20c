package runner

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"vbench/internal/machine"
	"vbench/internal/results"
)

// measure runs the launches more returns, batch after batch (the planned
// rounds, then adaptive ones), until it returns nothing, and reports each
// to progress: total is how many are planned (more may add). It stops when
// ctx is cancelled (complete is false then): the launch running at that
// moment is killed and not recorded. The account it returns is stopped as
// the loop ends. With jobs > 1 (a plan whose every metric is
// deterministic: a count does not depend on what else the machine runs)
// up to jobs launches of a batch run at once; each batch ends before more
// is asked, since what adaptive rounds decide depends on every run before.
func measure(ctx context.Context, l *launch, total int, more func() []step, progress Progress, jobs int) (acct *account, complete bool) {
	if progress != nil {
		progress.Begin(total)
		defer progress.End()
	}
	acct = startAccount()
	defer acct.stop()
	jobs = max(jobs, 1)
	var mu sync.Mutex // guards acct, the cells' records and progress
	done := 0
	one := func(i int, st step) (interrupted bool) {
		c := st.cell
		mu.Lock()
		failed := c.failure != ""
		mu.Unlock()
		ev := Event{Total: total, Cell: c.Key(), Warmup: st.warmup, Why: st.why, Metric: c.Metric}
		var r results.Run
		if !failed {
			var out Outcome
			r, out = l.run(ctx, st, i)
			mu.Lock()
			defer mu.Unlock()
			acct.add(out)
			if out.Interrupted {
				return true
			}
			if !st.why {
				c.record(r, st.warmup)
			}
			ev.Run, ev.Message = &r, r.Error
		} else {
			mu.Lock()
			defer mu.Unlock()
		}
		done++
		ev.Done = done
		if progress != nil {
			progress.Step(ev)
		}
		return false
	}
	for first := 0; ; {
		if ctx.Err() != nil {
			return acct, false
		}
		batch := more()
		if len(batch) == 0 {
			break
		}
		total = max(total, first+len(batch)) // no launch runs between batches
		if !runBatch(ctx, batch, first, jobs, one) {
			return acct, false
		}
		first += len(batch)
	}
	return acct, true
}

// runBatch runs one's steps (numbered from first) with up to jobs at
// once, in order of start; false when interrupted.
func runBatch(ctx context.Context, steps []step, first, jobs int, one func(int, step) bool) bool {
	if jobs == 1 {
		for k, st := range steps {
			if ctx.Err() != nil || one(first+k, st) {
				return false
			}
		}
		return true
	}
	var wg sync.WaitGroup
	var stop atomic.Bool
	sem := make(chan struct{}, jobs)
	for k, st := range steps {
		sem <- struct{}{}
		if ctx.Err() != nil || stop.Load() {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if one(first+k, st) {
				stop.Store(true)
			}
		}()
	}
	wg.Wait()
	return ctx.Err() == nil && !stop.Load()
}

// account is the measuring loop's clock: how long the loop ran, how much of
// that its children ran, and what CPU the whole machine used meanwhile. It
// gives the two figures a results file keeps about the harness itself.
type account struct {
	start               time.Time
	busy0, self0        time.Duration // machine-wide busy CPU and vbench's own, at start
	busyOK              bool
	launches            int
	childWall, childCPU time.Duration

	loop     time.Duration // set by stop
	others   time.Duration // busy CPU not vbench's nor its children's; set by stop
	othersOK bool
}

func startAccount() *account {
	a := &account{start: time.Now(), self0: selfCPU()}
	a.busy0, a.busyOK = machine.BusyCPU()
	return a
}

// add counts one launch. A launch killed by an interruption counts too: its
// process ran inside the loop, and leaving its time out charged it all to
// the harness (an interrupted run recorded milliseconds of bookkeeping per run).
func (a *account) add(out Outcome) {
	a.launches++
	a.childWall += out.Wall
	a.childCPU += out.User + out.Sys
}

// stop ends the loop's clock and takes the machine's CPU reading.
func (a *account) stop() {
	a.loop = time.Since(a.start)
	if busy1, ok := machine.BusyCPU(); ok && a.busyOK {
		// All the machine's CPU time, minus the children's and vbench's own.
		a.others = busy1 - a.busy0 - a.childCPU - (selfCPU() - a.self0)
		a.othersOK = true
	}
}

// record sets the results' bookkeeping per launch and, when the loop was
// long enough to tell, the cores other processes kept busy.
func (a *account) record(f *results.File) {
	if a.launches == 0 {
		return
	}
	f.BookkeepingNs = float64(a.loop-a.childWall) / float64(a.launches)
	if a.othersOK && a.loop >= minBusyLoop() {
		f.OtherCPU = math.Max(0, float64(a.others)/float64(a.loop))
	}
}

// minBusyLoop is how long the loop must run before the machine's busy CPU
// means anything. /proc/stat counts 10ms ticks, each charged whole to
// whatever a core runs at that instant, while the children's CPU (rusage)
// is exact: over a loop of L on n cores the difference is off by about
// 0.5·sqrt(n·10ms/L) cores (the ticks are a sample of the cores' time),
// a whole core for a 5ms loop on 2 cores. From n seconds on that is under
// 0.05 cores, a fifth of the level at which `vbench run` warns; shorter
// loops record nothing rather than noise.
func minBusyLoop() time.Duration {
	return time.Duration(runtime.NumCPU()) * time.Second
}

// selfCPU is the CPU time vbench itself has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
