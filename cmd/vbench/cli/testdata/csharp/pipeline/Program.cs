// A program vbench never saw, in three stages that share one helper:
// Pipeline.Render, Pipeline.Parse and Pipeline.Hash each call Pipeline.Mix
// in a loop. `Pipeline RENDER` sets Render's share of the work in percent
// of each other stage's (100: all three equal; 130: Render 30% dearer, the
// extra inside Mix). Two builds of a program where one stage's use of a
// shared helper grew are two runs with RENDER 100 and 130: an A/B pair's
// explain must name the path Render → Mix, not Mix alone.
using System.Diagnostics;
using System.Runtime.CompilerServices;

int render = args.Length > 0 ? int.Parse(args[0]) : 100;
const long unit = 24_000_000; // Mix steps a stage does at 100
var sw = Stopwatch.StartNew();
ulong h = 0;
for (int i = 0; i < 20; i++)
{
    h ^= Pipeline.Render(unit * render / 100 / 20, h + 1);
    h ^= Pipeline.Parse(unit / 20, h + 2);
    h ^= Pipeline.Hash(unit / 20, h + 3);
}
sw.Stop();
long ns = (long)(sw.ElapsedTicks * (1_000_000_000.0 / Stopwatch.Frequency));
Console.WriteLine($"VBENCH elapsed_ns={ns} checksum={h}");

static class Pipeline
{
    // Each stage hands its work to Mix in chunks, as a real stage would
    // call a shared helper per item.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Render(long steps, ulong x)
    {
        for (long done = 0; done < steps; done += 1000)
            x = Mix(Math.Min(1000, steps - done), x);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Parse(long steps, ulong x)
    {
        for (long done = 0; done < steps; done += 1000)
            x = Mix(Math.Min(1000, steps - done), x ^ 0x9E3779B97F4A7C15UL);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Hash(long steps, ulong x)
    {
        for (long done = 0; done < steps; done += 1000)
            x = Mix(Math.Min(1000, steps - done), x + 0x632BE59BD9B4E019UL);
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Mix(long steps, ulong x)
    {
        for (long i = 0; i < steps; i++)
            x = (x ^ (x >> 29)) * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }
}
