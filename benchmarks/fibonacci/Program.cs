// fibonacci: the thesis's case, `iterations` times the naive recursive fib(n).
// Stresses the per-call cost of a profiler: ~27 million tiny calls per fib(30),
// nothing else.
//
// Exact calls in the whole process (no in-process warm-up):
//   Vbench.Fibonacci.Program.Fib = iterations * (2*fib(n+1) - 1)
//   Vbench.Fibonacci.Program.Run = 1
// where iterations = round(--iterations * --scale).
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.Fibonacci;

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "fibonacci",
            new Option("n", "30", "argument of fib"),
            new Option("iterations", "100", "how many times fib(n) is computed"));
        int n = args.Int("n", min: 0);
        if (n > 40)
            args.Die("--n must be at most 40");
        int iterations = args.Scaled("iterations");

        long start = Clock.Start();
        long sum = Run(n, iterations);
        long elapsed = Clock.ElapsedNs(start);

        // Closed forms, computed without calling Fib.
        long fibN = Iterative(n);
        long callsPerFib = 2 * Iterative(n + 1) - 1;
        if (sum != fibN * iterations)
            throw new InvalidOperationException($"fib({n}) summed {iterations} times is {sum}, want {fibN * iterations}");

        new VbenchLine(elapsed, sum.ToString())
            .Calls("Vbench.Fibonacci.Program.Fib", callsPerFib * iterations)
            .Calls("Vbench.Fibonacci.Program.Run", 1)
            .Add("n", n)
            .Add("iterations", iterations)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Run(int n, int iterations)
    {
        long sum = 0;
        for (int i = 0; i < iterations; i++)
            sum += Fib(n);
        return sum;
    }

    // Not a tail call: the addition happens after both calls return.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

    private static long Iterative(int n)
    {
        long a = 0, b = 1;
        for (int i = 0; i < n; i++)
            (a, b) = (b, a + b);
        return a;
    }
}
