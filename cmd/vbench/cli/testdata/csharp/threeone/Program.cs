// A program vbench's benchmarks do not include, with a known 3:1 split of its
// work: Heavy.Mix and Light.Mix are the same loop, Heavy's three times as
// long, called alternately, so the samples whose stack holds Heavy.Mix are
// 3/4 of those holding either. It declares that on its VBENCH line (or,
// with --false-shares, a false 0.5/0.5 that every sampler must fail).
// Usage: ThreeOne ROUNDS [--false-shares]
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace ThreeOne;

public static class Program
{
    public static int Main(string[] args)
    {
        long rounds = long.Parse(args[0]);
        bool lie = args.Length > 1 && args[1] == "--false-shares";
        var sw = Stopwatch.StartNew();
        ulong x = 1;
        for (long i = 0; i < rounds; i++)
        {
            x = Heavy.Mix(x);
            x = Light.Mix(x);
        }
        long ns = (long)(sw.Elapsed.TotalMilliseconds * 1e6);
        string shares = lie
            ? "share.ThreeOne.Heavy.Mix=0.5 share.ThreeOne.Light.Mix=0.5"
            : "share.ThreeOne.Heavy.Mix=0.75 share.ThreeOne.Light.Mix=0.25";
        Console.WriteLine($"VBENCH elapsed_ns={ns} checksum={x:x16} calls.ThreeOne.Heavy.Mix={rounds} calls.ThreeOne.Light.Mix={rounds} {shares}");
        return 0;
    }
}

public static class Heavy
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Mix(ulong x)
    {
        for (int i = 0; i < 3 * Light.Steps; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }
}

public static class Light
{
    public const int Steps = 20000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Mix(ulong x)
    {
        for (int i = 0; i < Steps; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }
}
