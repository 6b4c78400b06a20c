// Two methods sharing a program's work, in amounts the arguments set:
// `TwoWork HOT COLD` runs Work.Hot over HOT million steps and Work.Cold
// over COLD million, each in 20 calls. Two builds of a program in which one
// method does more work are two runs with a larger HOT: vbench diff and an
// A/B pair's explain must name Work.Hot first.
using System.Diagnostics;
using System.Runtime.CompilerServices;

long hot = long.Parse(args[0]) * 1_000_000, cold = long.Parse(args[1]) * 1_000_000;
var sw = Stopwatch.StartNew();
ulong h = 0;
for (int i = 0; i < 20; i++)
{
    h ^= Work.Hot(hot / 20, h + 1);
    h ^= Work.Cold(cold / 20, h + 2);
}
sw.Stop();
long ns = (long)(sw.ElapsedTicks * (1_000_000_000.0 / Stopwatch.Frequency));
Console.WriteLine($"VBENCH elapsed_ns={ns} checksum={h}");

// The same loop in each method, written out twice: a profiler may keep
// methods from being inlined, so a shared helper would own the work.
static class Work
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Hot(long steps, ulong x)
    {
        for (long i = 0; i < steps; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Cold(long steps, ulong x)
    {
        for (long i = 0; i < steps; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }
}
