// Two threads: a worker computes in A for about 200 ms, then in B for about
// 100 ms, while the main thread waits for it; then the main thread forces a
// full collection and throws an exception and catches it. It prints both
// threads' kernel ids, so a sampling timeline of the run can be checked: on
// the worker A's samples before B's, on the main thread no compute.
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

int workerTid = 0;
var worker = new Thread(() =>
{
    workerTid = Work.Gettid();
    Work.A(200);
    Work.B(100);
});
Work.StartAndWait(worker);
Work.ForceGC();
Work.ThrowAndCatch();
Console.WriteLine($"main_tid={Work.Gettid()} worker_tid={workerTid} checksum={Work.Sink}");

static partial class Work
{
    public static ulong Sink;

    [LibraryImport("libc", EntryPoint = "gettid")]
    public static partial int Gettid();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void A(int ms) => Spin(ms);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void B(int ms) => Spin(ms);

    // Spin computes until ms milliseconds have passed (inlined into A and B:
    // the samples land on them).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    static void Spin(int ms)
    {
        var sw = Stopwatch.StartNew();
        ulong x = 1;
        while (sw.ElapsedMilliseconds < ms)
            for (int i = 0; i < 1000; i++)
                x = x * 6364136223846793005UL + 1442695040888963407UL;
        Sink ^= x;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void StartAndWait(Thread t)
    {
        t.Start();
        t.Join();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void ForceGC()
    {
        var keep = new List<byte[]>();
        for (int i = 0; i < 2000; i++)
            keep.Add(new byte[1024]);
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        Sink ^= (ulong)keep.Count;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void ThrowAndCatch()
    {
        try
        {
            throw new InvalidOperationException("caught");
        }
        catch (InvalidOperationException e)
        {
            Sink ^= (ulong)e.Message.Length;
        }
    }
}
