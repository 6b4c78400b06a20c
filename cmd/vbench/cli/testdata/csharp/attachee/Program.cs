// A program to attach to while it runs: for SECONDS seconds it splits its
// work 3:1 between Heavy.Mix and Light.Mix (the same loop, Heavy's three
// times as long, called alternately: the samples whose stack holds
// Heavy.Mix are 3/4 of those holding either), on the main thread and on
// THREADS-1 more started before any attach. It says "ready" once working
// and, at the end, how many rounds each thread made: the output a profiler
// attached and detached in between must leave as it is.
// THREADS 0: no work, it waits SECONDS (a process to refuse attaches to).
// With --churn the main thread, instead of working, starts short threads
// one after another (each runs Light.Mix for a few ms): threads that start
// while a profiler attaches and detaches.
// Usage: Attachee SECONDS [THREADS] [--churn]
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Attachee;

public static class Program
{
    public static int Main(string[] args)
    {
        double seconds = double.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture);
        int threads = args.Length > 1 ? int.Parse(args[1]) : 1;
        if (threads == 0)
        {
            Console.WriteLine($"attachee: ready pid {Environment.ProcessId}");
            Console.Out.Flush();
            Thread.Sleep(TimeSpan.FromSeconds(seconds));
            Console.WriteLine("attachee: done rounds=");
            return 0;
        }
        var rounds = new long[threads];
        var sums = new ulong[threads];
        var sw = Stopwatch.StartNew();
        var workers = new Thread[threads - 1];
        for (int t = 1; t < threads; t++)
        {
            int me = t;
            workers[t - 1] = new Thread(() => Work(sw, seconds, me, rounds, sums));
            workers[t - 1].Start();
        }
        Console.WriteLine($"attachee: ready pid {Environment.ProcessId}");
        Console.Out.Flush();
        if (Array.IndexOf(args, "--churn") >= 0)
            Churn(sw, seconds, rounds, sums);
        else
            Work(sw, seconds, 0, rounds, sums);
        foreach (var w in workers)
            w.Join();
        Console.WriteLine($"attachee: done rounds={string.Join(",", rounds)}");
        return 0;
    }

    static void Churn(Stopwatch sw, double seconds, long[] rounds, ulong[] sums)
    {
        ulong x = 1;
        while (sw.Elapsed.TotalSeconds < seconds)
        {
            var t = new Thread(() =>
            {
                for (int i = 0; i < 300; i++)
                    x = Light.Mix(x);
            });
            t.Start();
            t.Join();
            rounds[0]++;
        }
        sums[0] = x;
    }

    static void Work(Stopwatch sw, double seconds, int me, long[] rounds, ulong[] sums)
    {
        ulong x = (ulong)me + 1;
        long n = 0;
        while (sw.Elapsed.TotalSeconds < seconds)
        {
            x = Heavy.Mix(x);
            x = Light.Mix(x);
            n++;
        }
        rounds[me] = n;
        sums[me] = x;
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
