// Package baseline is the store of baselines: it reads them (Load), refuses
// results that must not become one (Check), guards them from being
// overwritten by other outputs (Guard) and writes them atomically, under a
// lock (Write, Lock). How a cell is judged against a baseline is
// internal/verdict's job.
package baseline
