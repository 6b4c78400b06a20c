// exceptions: throw/catch through several frames, with exception filters
// (which run during the first pass, before any frame is unwound), a finally
// on the way, catch-and-rethrow and wrap-and-throw. Stresses a profiler's
// exception callbacks and its shadow stack: frames left by unwinding, not by
// a normal return, must still be popped, and filter funclets run on top of
// frames that are about to be unwound.
//
// For each i in [0, N), N = round(--iterations * --scale):
//   Run -> Level1(i) -> Level2(i) -> Level3(i) -> Thrower(i)
//   Thrower   returns when i % 8 == 7, else throws WorkloadException(code i);
//   Level3    catches code % 4 == 1 and throws a new WorkloadException(code + 1000, inner),
//             catches code % 4 == 2 and rethrows it (throw;);
//   Level2    catches when ShouldHandle(e) (code % 3 == 0) and returns -code;
//   Level1    has a finally that calls Cleanup();
//   Run       catches the rest when Accept(e) (always true).
// Exact calls in the whole process (no in-process warm-up), with
//   T = #{i : i % 8 != 7}               (throws from Thrower)
//   W = #{i : i % 8 in {1, 5}}          (wrapped at Level3)
//   H = #{escaping exceptions whose code % 3 == 0}
//   Vbench.Exceptions.Program.Level1/Level2/Level3/Thrower/Cleanup = N each
//   Vbench.Exceptions.Program.ShouldHandle = T   (every exception leaving Level3 reaches it once)
//   Vbench.Exceptions.Program.Accept       = T - H
//   Vbench.Exceptions.WorkloadException..ctor = T + W
// The program computes T, W, H and the checksum by plain arithmetic over i
// (no exceptions) and checks the kernel's result against it.
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.Exceptions;

public sealed class WorkloadException : Exception
{
    public int Code { get; }

    // One constructor only: overloads would share the profiler name ..ctor.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public WorkloadException(int code, Exception? inner) : base("workload", inner) => Code = code;
}

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "exceptions",
            new Option("iterations", "100000", "how many times the frame chain is entered"));
        int n = args.Scaled("iterations");

        long start = Clock.Start();
        long total = Run(n);
        long elapsed = Clock.ElapsedNs(start);

        var want = Model(n);
        if (total != want.Total)
            throw new InvalidOperationException($"kernel total {total}, model says {want.Total}");

        new VbenchLine(elapsed, total.ToString())
            .Calls("Vbench.Exceptions.Program.Run", 1)
            .Calls("Vbench.Exceptions.Program.Level1", n)
            .Calls("Vbench.Exceptions.Program.Level2", n)
            .Calls("Vbench.Exceptions.Program.Level3", n)
            .Calls("Vbench.Exceptions.Program.Thrower", n)
            .Calls("Vbench.Exceptions.Program.Cleanup", n)
            .Calls("Vbench.Exceptions.Program.ShouldHandle", want.Thrown)
            .Calls("Vbench.Exceptions.Program.Accept", want.Thrown - want.HandledAtLevel2)
            .Calls("Vbench.Exceptions.WorkloadException..ctor", want.Thrown + want.Wrapped)
            .Add("iterations", n)
            .Add("thrown", want.Thrown + want.Wrapped)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Run(int n)
    {
        long total = 0;
        for (int i = 0; i < n; i++)
        {
            try
            {
                total += Level1(i);
            }
            catch (WorkloadException e) when (Accept(e))
            {
                total += 3L * e.Code;
            }
        }
        return total;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Level1(int i)
    {
        try
        {
            return Level2(i) + 1;
        }
        finally
        {
            Cleanup();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Level2(int i)
    {
        try
        {
            return Level3(i) + 2;
        }
        catch (WorkloadException e) when (ShouldHandle(e))
        {
            return -e.Code;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Level3(int i)
    {
        try
        {
            return Thrower(i) + 3;
        }
        catch (WorkloadException e) when (e.Code % 4 == 1)
        {
            throw new WorkloadException(e.Code + 1000, e);
        }
        catch (WorkloadException e) when (e.Code % 4 == 2)
        {
            throw;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Thrower(int i)
    {
        if (i % 8 == 7)
            return i;
        throw new WorkloadException(i, null);
    }

    [ThreadStatic] private static int t_cleanups;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Cleanup() => t_cleanups++;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool ShouldHandle(WorkloadException e) => e.Code % 3 == 0;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool Accept(WorkloadException e) => true;

    private readonly record struct Expected(long Total, long Thrown, long Wrapped, long HandledAtLevel2);

    /// <summary>What the kernel must return and how often each path runs, by arithmetic alone.</summary>
    private static Expected Model(int n)
    {
        long total = 0, thrown = 0, wrapped = 0, handled = 0;
        for (int i = 0; i < n; i++)
        {
            if (i % 8 == 7)
            {
                total += i + 3 + 2 + 1;
                continue;
            }
            thrown++;
            int code = i;
            if (i % 4 == 1)
            {
                wrapped++;
                code = i + 1000;
            }
            if (code % 3 == 0)
            {
                handled++;
                total += -code + 1;
            }
            else
            {
                total += 3L * code;
            }
        }
        return new Expected(total, thrown, wrapped, handled);
    }
}
