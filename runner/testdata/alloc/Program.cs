// alloc <count> <size> <collections>: allocates count byte arrays of size
//   bytes (each escapes to a static field, so none is elided or put on the
//   stack: count × (size + 24 bytes of header) on the heap), then forces
//   collections full GCs, and prints its VBENCH line.
// kill <mb>: holds mb MiB of arrays, touched, then kills itself (SIGKILL),
//   as the OOM killer would.
// Its own StartupHook (below) writes a line into $ALLOC_OWN_HOOK_MARK when
// that is set: a workload with a startup hook of its own.
using System.Diagnostics;

static class Program
{
    static object? sink;

    static int Main(string[] args)
    {
        var sw = Stopwatch.StartNew();
        long sum = 0;
        if (args[0] == "kill")
        {
            var held = new List<byte[]>();
            for (int i = 0; i < int.Parse(args[1]); i++)
            {
                var a = new byte[1 << 20];
                for (int j = 0; j < a.Length; j += 4096) a[j] = 1;
                held.Add(a);
            }
            sink = held;
            Console.Out.Flush();
            Process.GetCurrentProcess().Kill();
            Thread.Sleep(Timeout.Infinite);
        }
        int count = int.Parse(args[1]), size = int.Parse(args[2]), collections = int.Parse(args[3]);
        for (int i = 0; i < count; i++)
        {
            var a = new byte[size];
            a[i % size] = 1;
            sink = a;
            sum += a.Length;
        }
        for (int i = 0; i < collections; i++)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        }
        Console.WriteLine($"VBENCH elapsed_ns={sw.Elapsed.Ticks * 100} checksum={sum}");
        return 0;
    }
}

public static class StartupHook
{
    public static void Initialize()
    {
        string? mark = Environment.GetEnvironmentVariable("ALLOC_OWN_HOOK_MARK");
        if (!string.IsNullOrEmpty(mark))
        {
            File.AppendAllText(mark, "own hook ran in " + Environment.ProcessId + "\n");
        }
    }
}
