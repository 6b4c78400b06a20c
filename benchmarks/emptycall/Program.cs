// emptycall: --calls calls of an empty method the JIT may not inline, in a
// counted loop. Under none its kernel time over its calls is what a bare
// call (with its loop step) costs on this machine; under a profiler the cost
// per call vbench reports here is the profiler's per call with nothing else
// in it: the yardstick the other workloads' costs per call are read against.
//
// Exact calls in the whole process:
//   Vbench.EmptyCall.Program.Empty = calls, where calls = round(--calls * --scale)
//   Vbench.EmptyCall.Program.Run   = 1
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.EmptyCall;

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "emptycall",
            new Option("calls", "50000000", "calls of the empty method (times --scale)"));
        long calls = args.Scaled((long)args.Int("calls"));

        long start = Clock.Start();
        long done = Run(calls);
        long elapsed = Clock.ElapsedNs(start);
        if (done != calls)
            throw new InvalidOperationException($"made {done} calls, want {calls}");

        new VbenchLine(elapsed, done.ToString())
            .Calls("Vbench.EmptyCall.Program.Empty", calls)
            .Calls("Vbench.EmptyCall.Program.Run", 1)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Run(long n)
    {
        long i = 0;
        for (; i < n; i++)
            Empty();
        return i;
    }

    // Nothing to do, and not inlined: the call itself is the work.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Empty()
    {
    }
}
