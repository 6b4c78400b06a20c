// split: two identical kernels sharing the work in a known ratio, the
// ground truth for a sampler's shares. Each thread makes n calls, a of them
// to A.Step and the rest to B.Step, spread evenly through its loop (a
// Bresenham pattern: ratio 0.25 is A, B, B, B, A, ...). The two functions
// are the same code, so each call costs the same whichever it is, and the
// samples whose stack holds A.Step are a/n of those holding either, by
// construction. Stresses the sampler's leaves: both are one-liners with no
// loop and no call, so no GC safe point (a sampler that only sees threads
// stopped at safe points never sees them). They are in two classes so that
// a profiler filter (which names types) can hide one.
//
// The calls alternate within microseconds, far finer than any sampling
// interval, so a sampling tick cannot fall in step with the pattern, and
// anything that stalls the thread (preemption on a busy machine, a GC) hits
// both functions in proportion.
//
// Exact calls in the whole process, with N = round(--calls * scale) spread
// over the T = --threads threads (thread t makes n_t = N/T calls, the first
// N%T threads one more) and a_t = round(--ratio * n_t):
//   Vbench.Split.A.Step       = sum of a_t     (= A)
//   Vbench.Split.B.Step       = N - A
//   Vbench.Split.Kernels.Loop = T
//   Vbench.Split.Program.Run  = 1
// Shares (of the samples whose stack holds A.Step or B.Step):
//   share.Vbench.Split.A.Step = A / N, share.Vbench.Split.B.Step = (N - A) / N
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.Split;

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "split",
            new Option("calls", "60000000", "calls in all, over every thread (times --scale)"),
            new Option("ratio", "0.25", "share of the calls that go to A.Step (0 to 1)"),
            new Option("threads", "1", "threads sharing the calls (1: the main thread)"));
        long total = args.Scaled((long)args.Int("calls"));
        double ratio = args.Double("ratio");
        if (ratio < 0 || ratio > 1)
            args.Die($"--ratio must be between 0 and 1, got {ratio}");
        int threads = args.Int("threads");
        if (threads > total)
            args.Die("--threads is more than --calls");

        var calls = new long[threads];
        var toA = new long[threads];
        for (int t = 0; t < threads; t++)
        {
            calls[t] = total / threads + (t < total % threads ? 1 : 0);
            toA[t] = (long)Math.Round(ratio * calls[t], MidpointRounding.AwayFromZero);
        }
        long a = toA.Sum();

        var results = new ulong[threads];
        long start = Clock.Start();
        Run(calls, toA, results);
        long elapsed = Clock.ElapsedNs(start);

        ulong h = Fnv.Offset;
        for (int t = 0; t < threads; t++)
            h = Fnv.Mix(Fnv.Mix(h, results[t]), (ulong)toA[t]);

        new VbenchLine(elapsed, Fnv.Hex(h))
            .Calls("Vbench.Split.A.Step", a)
            .Calls("Vbench.Split.B.Step", total - a)
            .Calls("Vbench.Split.Kernels.Loop", threads)
            .Calls("Vbench.Split.Program.Run", 1)
            .Share("Vbench.Split.A.Step", (double)a / total)
            .Share("Vbench.Split.B.Step", (double)(total - a) / total)
            .Add("threads", threads)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel: every thread's loop, on the main thread when there is one.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Run(long[] calls, long[] toA, ulong[] results)
    {
        if (calls.Length == 1)
        {
            results[0] = Kernels.Loop(calls[0], toA[0], 1);
            return;
        }
        var pool = new Thread[calls.Length];
        for (int t = 0; t < pool.Length; t++)
        {
            int i = t;
            pool[t] = new Thread(() => results[i] = Kernels.Loop(calls[i], toA[i], (ulong)i + 1)) { Name = "vbench-split" };
            pool[t].Start();
        }
        foreach (var th in pool)
            th.Join();
    }
}

public static class Kernels
{
    /// <summary>n calls, a of them to A.Step, spread evenly; returns the value threaded through them.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Loop(long n, long a, ulong seed)
    {
        ulong x = seed;
        long acc = 0;
        for (long i = 0; i < n; i++)
        {
            acc += a;
            if (acc >= n)
            {
                acc -= n;
                x = A.Step(x);
            }
            else
            {
                x = B.Step(x);
            }
        }
        return x;
    }
}

// A.Step and B.Step are the same code (keep them so): a few dependent
// integer operations, no loop, no call.
public static class A
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Step(ulong x)
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x *= 0x9E3779B97F4A7C15UL;
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9UL;
        return x ^ (x >> 31);
    }
}

public static class B
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Step(ulong x)
    {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x *= 0x9E3779B97F4A7C15UL;
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9UL;
        return x ^ (x >> 31);
    }
}
