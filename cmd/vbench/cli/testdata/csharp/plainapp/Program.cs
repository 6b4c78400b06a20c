// A program that knows nothing of vbench: it prints its own result line, as
// any command hyperfine measures would. The harness's tests measure it by
// wall and CPU time under vbench's own modes, the runtime's EventPipe
// sampler, and vbench's library attached by hand through CORECLR_*
// variables, as if it were someone else's profiler.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace PlainApp;

public static class Primes
{
    // Sieve of Eratosthenes; not inlined, so every profiler can name it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CountBelow(int n)
    {
        var composite = new bool[n];
        int count = 0;
        for (int i = 2; i < n; i++)
        {
            if (composite[i]) continue;
            count++;
            for (long j = (long)i * i; j < n; j += i) composite[j] = true;
        }
        return count;
    }
}

public static class Program
{
    public static int Main(string[] args)
    {
        int n = args.Length > 0 ? int.Parse(args[0]) : 2_000_000;
        int rounds = args.Length > 1 ? int.Parse(args[1]) : 5;
        var sw = Stopwatch.StartNew();
        int count = 0;
        for (int r = 0; r < rounds; r++) count = Primes.CountBelow(n);
        Console.WriteLine($"primes below {n}: {count} ({sw.ElapsedMilliseconds} ms for {rounds} rounds)");
        return 0;
    }
}
