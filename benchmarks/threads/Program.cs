// threads: many short-lived threads, the thread pool, and async/await.
// Stresses a profiler's thread bookkeeping (thread created/destroyed
// callbacks, per-thread call trees, hundreds of threads over the run),
// concurrent use of its hooks from several threads, and async state machines
// whose continuations resume on other threads.
//
// Three phases, each scaled by --scale:
//   1. rounds: R rounds; each starts T dedicated threads (ThreadBody), each
//      crunching P items and adding its result to a shared sum under a lock;
//      the round joins them before the next starts (R*T threads in all).
//   2. pool:   M work items queued to the thread pool (Task.Factory.StartNew
//      with PoolItem), awaited with Task.WhenAll.
//   3. async:  C async chains (ChainAsync), each awaiting D steps (StepAsync);
//      a step does `await Task.Yield()`, then waits on a SemaphoreSlim (at
//      most 2 steps inside at once), crunches one item and releases.
// Every result is stored by index and combined in index order, so the
// checksum does not depend on scheduling.
//
// Exact calls in the whole process (no in-process warm-up), with
// R = round(--rounds * scale), M = round(--tasks * scale), C = round(--chains * scale):
//   Vbench.Threads.Program.ThreadBody = R*T
//   Vbench.Threads.Program.PoolItem   = M
//   Vbench.Threads.Program.ChainAsync = C
//   Vbench.Threads.Program.StepAsync  = C*D
//   Vbench.Threads.Worker.Crunch      = R*T*P + M + C*D
// The compiler-generated state machines' MoveNext methods are not listed:
// how often they run depends on whether SemaphoreSlim.WaitAsync completed
// synchronously, which is up to the scheduler.
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.Threads;

public static class Worker
{
    /// <summary>A few microseconds of integer work, a pure function of seed.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Crunch(ulong seed, int work)
    {
        ulong x = seed * 0x9E3779B97F4A7C15UL + 1;
        for (int i = 0; i < work; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        return x;
    }
}

public static class Program
{
    private static int s_work;
    private static readonly object s_lock = new();
    private static ulong s_roundSum;
    private static readonly SemaphoreSlim s_gate = new(2, 2);

    private sealed record ThreadJob(int Index, int Items);

    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "threads",
            new Option("rounds", "100", "rounds of dedicated threads (times --scale)"),
            new Option("threads", "8", "dedicated threads per round"),
            new Option("items", "50", "items each dedicated thread crunches"),
            new Option("tasks", "80000", "thread-pool work items (times --scale)"),
            new Option("chains", "2000", "async chains (times --scale)"),
            new Option("steps", "40", "awaited steps per async chain"),
            new Option("work", "500", "xorshift rounds per item"));
        int rounds = args.Scaled("rounds"), threads = args.Int("threads"), items = args.Int("items");
        int tasks = args.Scaled("tasks"), chains = args.Scaled("chains"), steps = args.Int("steps");
        s_work = args.Int("work");

        long start = Clock.Start();
        ulong checksum = Run(rounds, threads, items, tasks, chains, steps);
        long elapsed = Clock.ElapsedNs(start);

        long crunches = (long)rounds * threads * items + tasks + (long)chains * steps;
        new VbenchLine(elapsed, Fnv.Hex(checksum))
            .Calls("Vbench.Threads.Program.Run", 1)
            .Calls("Vbench.Threads.Program.ThreadBody", (long)rounds * threads)
            .Calls("Vbench.Threads.Program.PoolItem", tasks)
            .Calls("Vbench.Threads.Program.ChainAsync", chains)
            .Calls("Vbench.Threads.Program.StepAsync", (long)chains * steps)
            .Calls("Vbench.Threads.Worker.Crunch", crunches)
            .Add("threads_started", (long)rounds * threads)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel: the three phases, their results hashed in a fixed order.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Run(int rounds, int threads, int items, int tasks, int chains, int steps)
    {
        ulong h = Fnv.Offset;

        // 1. Dedicated threads, joined every round.
        var pool = new Thread[threads];
        for (int r = 0; r < rounds; r++)
        {
            s_roundSum = 0;
            for (int t = 0; t < threads; t++)
            {
                pool[t] = new Thread(ThreadBody) { Name = "vbench-worker", IsBackground = true };
                pool[t].Start(new ThreadJob(r * threads + t, items));
            }
            foreach (var th in pool)
                th.Join();
            h = Fnv.Mix(h, s_roundSum); // a sum: independent of the order threads finished in
        }

        // 2. The thread pool.
        var work = new Task<ulong>[tasks];
        for (int i = 0; i < tasks; i++)
            work[i] = Task.Factory.StartNew(PoolItem, i, CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Default);
        Task.WaitAll(work);
        foreach (var t in work)
            h = Fnv.Mix(h, t.Result);

        // 3. async/await, run from a pool thread so no continuation needs this one.
        var chainTasks = Task.Run(() => Task.WhenAll(Enumerable.Range(0, chains).Select(c => ChainAsync(c, steps)))).GetAwaiter().GetResult();
        foreach (ulong r in chainTasks)
            h = Fnv.Mix(h, r);
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThreadBody(object? state)
    {
        var job = (ThreadJob)state!;
        ulong sum = 0;
        for (int i = 0; i < job.Items; i++)
            sum += Worker.Crunch((ulong)job.Index * 1_000_003UL + (ulong)i, s_work);
        lock (s_lock)
            s_roundSum += sum;
    }

    // The xor after the call keeps Crunch out of tail position: a tail call
    // would replace PoolItem's frame, and a profiler would see Crunch called
    // from the thread pool instead of from PoolItem.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong PoolItem(object? state)
    {
        int i = (int)state!;
        return Worker.Crunch(0x5000_0000UL + (ulong)i, s_work) ^ (ulong)i;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async Task<ulong> ChainAsync(int chain, int steps)
    {
        ulong acc = (ulong)chain;
        for (int s = 0; s < steps; s++)
            acc = await StepAsync(acc, s);
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async Task<ulong> StepAsync(ulong acc, int step)
    {
        await Task.Yield();
        await s_gate.WaitAsync();
        try
        {
            return Worker.Crunch(acc ^ ((ulong)step << 40), s_work);
        }
        finally
        {
            s_gate.Release();
        }
    }
}
