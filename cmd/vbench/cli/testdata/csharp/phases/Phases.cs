// A program with a start-up and a kernel, in amounts the arguments set:
// `Phases SETUP KERNEL ALLOCS` runs Setup.Build over SETUP million steps
// before the kernel, then between the harness's clocks (which mark the
// kernel) Kernel.Run over KERNEL million steps, allocating ALLOCS thousand
// arrays of 4 KiB on the way. Two builds of a program are two runs with
// other amounts: a head that does more at start-up and a little more in its
// kernel must be explained by its kernel; one that allocates more, by its
// garbage collections.
using System.Runtime.CompilerServices;
using Vbench.Common;

long setup = long.Parse(args[0]) * 1_000_000, kernel = long.Parse(args[1]) * 1_000_000, allocs = long.Parse(args[2]) * 1000;
ulong h = Setup.Build(setup, 1);
long start = Clock.Start();
h ^= Kernel.Run(kernel, allocs, h + 2);
long ns = Clock.ElapsedNs(start);
new VbenchLine(ns, h.ToString("x16")).Print();

// The same loop in each method, written out twice: a profiler may keep
// methods from being inlined, so a shared helper would own the work.
static class Setup
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Build(long steps, ulong x)
    {
        for (long i = 0; i < steps; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }
}

static class Kernel
{
    static byte[][] keep = new byte[256][];

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Run(long steps, long allocs, ulong x)
    {
        long every = allocs > 0 ? Math.Max(1, steps / allocs) : long.MaxValue;
        for (long i = 0; i < steps; i++)
        {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            if (i % every == 0 && allocs > 0)
                keep[i & 255] = new byte[4096];
        }
        return x;
    }
}
