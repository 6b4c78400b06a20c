// Two threads, then a GC, then an exception: a worker computes for about
// 200 ms while the main thread waits for it; the main thread then forces a
// full collection, then throws an exception and catches it. Each phase times
// itself with a Stopwatch and the program prints those times and both
// threads' kernel ids on one line, so a timeline of the run can be checked
// against the program's own clock.
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

long computeNs = 0;
int workerTid = 0;
var worker = new Thread(() =>
{
    workerTid = Phases.Gettid();
    computeNs = Phases.Compute(200);
});
long waitNs = Phases.StartAndWait(worker);
long gcNs = Phases.ForceGC();
long throwNs = Phases.ThrowAndCatch();
Console.WriteLine($"main_tid={Phases.Gettid()} worker_tid={workerTid} compute_ns={computeNs} wait_ns={waitNs} gc_ns={gcNs} throw_ns={throwNs} checksum={Phases.Sink}");

static partial class Phases
{
    public static ulong Sink;

    [LibraryImport("libc", EntryPoint = "gettid")]
    public static partial int Gettid();

    static long Ns(Stopwatch sw) => (long)(sw.ElapsedTicks * (1_000_000_000.0 / Stopwatch.Frequency));

    // Compute runs short steps until ms milliseconds have passed.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Compute(int ms)
    {
        var sw = Stopwatch.StartNew();
        ulong x = 1;
        while (sw.ElapsedMilliseconds < ms)
            x = Step(x);
        Sink ^= x;
        return Ns(sw);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static ulong Step(ulong x)
    {
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005UL + 1442695040888963407UL;
        return x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long StartAndWait(Thread t)
    {
        var sw = Stopwatch.StartNew();
        t.Start();
        t.Join();
        return Ns(sw);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long ForceGC()
    {
        var keep = new List<byte[]>();
        for (int i = 0; i < 2000; i++)
            keep.Add(new byte[1024]);
        var sw = Stopwatch.StartNew();
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        long ns = Ns(sw);
        Sink ^= (ulong)keep.Count;
        return ns;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long ThrowAndCatch()
    {
        var sw = Stopwatch.StartNew();
        try
        {
            Throw();
        }
        catch (InvalidOperationException e)
        {
            Sink ^= (ulong)e.Message.Length;
        }
        return Ns(sw);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Throw() => throw new InvalidOperationException("thrown on purpose");
}
