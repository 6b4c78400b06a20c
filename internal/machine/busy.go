package machine

import (
	"runtime"
	"syscall"
	"time"
)

// BusyWarnCores is how much CPU (in cores, averaged over a run) other
// processes may use before vbench warns that times are noisier than usual.
const BusyWarnCores = 0.25

// Mark is a reading of the machine's busy CPU, this process's and its
// waited-for children's, to tell later how much other processes used.
type Mark struct {
	at                   time.Time
	busy, self, children time.Duration
	ok                   bool
	load                 float64
}

// MarkBusy takes the reading.
func MarkBusy() Mark {
	m := Mark{at: time.Now(), load: LoadAverage()}
	m.busy, m.ok = BusyCPU()
	m.self, m.children = rusage(syscall.RUSAGE_SELF), rusage(syscall.RUSAGE_CHILDREN)
	return m
}

// Others is how many cores, on average since the mark, processes other than
// this one and the children it waited for kept busy. From a span shorter
// than MinBusySpan the tick-based machine figure is noise: then measured is
// false and cores is the 1-minute load average at the mark (other processes
// waiting for or holding a core then), or -1 when unknown.
func (m Mark) Others() (cores float64, measured bool) {
	span := time.Since(m.at)
	busy, ok := BusyCPU()
	if !ok || !m.ok || span < MinBusySpan() {
		return m.load, false
	}
	others := busy - m.busy - (rusage(syscall.RUSAGE_SELF) - m.self) - (rusage(syscall.RUSAGE_CHILDREN) - m.children)
	return max(0, float64(others)/float64(span)), true
}

// MinBusySpan is how long a span must be before the machine's busy CPU
// means anything: /proc/stat counts 10ms ticks, charged whole to whatever a
// core runs at that instant, so over a span L on n cores the figure is off
// by about 0.5·sqrt(n·10ms/L) cores; from n seconds on that is under 0.05
// cores, a fifth of BusyWarnCores.
func MinBusySpan() time.Duration { return time.Duration(runtime.NumCPU()) * time.Second }

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
