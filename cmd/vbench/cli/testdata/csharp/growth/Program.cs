// growth: issue 53's test program, two builds of one source (base/, head/).
// Each of n items costs one Step (the bulk of the work, linear in n) and a
// few Probes. Base makes 2 probes an item: Probe is called 2n times. Head
// makes about 4i/250 probes for item i: Probe is called 2n²/250 times,
// the same as base's at n = 250 (the suite's smallest size), and its
// calls cost so little beside the Steps that the kernel at n = 2000 is
// about 3% longer, less than a run's noise on a shared machine.
using System.Diagnostics;
using System.Runtime.CompilerServices;

int n = 250;
for (int a = 0; a + 1 < args.Length; a++)
    if (args[a] == "--n")
        n = int.Parse(args[a + 1]);
var sw = Stopwatch.StartNew();
ulong sum = Work.Run(n);
sw.Stop();
long ns = (long)(sw.ElapsedTicks * (1_000_000_000.0 / Stopwatch.Frequency));
Console.WriteLine($"VBENCH elapsed_ns={ns} checksum={sum:x16}");

static class Work
{
    const int Smallest = 250;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Run(int n)
    {
        ulong h = 0xcbf29ce484222325;
        for (int i = 0; i < n; i++)
        {
            h = Step(h, i);
#if HEAD
            // Item i makes T(i+1) - T(i) probes, T(k) = 2k²/250: the probes
            // of n items telescope to 2n²/250, 2n at n = 250.
            int probes = (int)(2L * (i + 1) * (i + 1) / Smallest - 2L * i * i / Smallest);
#else
            int probes = 2;
#endif
            for (int j = 0; j < probes; j++)
                h = Probe(h, j);
        }
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static ulong Step(ulong h, int i)
    {
        for (int k = 0; k < 5000; k++)
            h = (h ^ (ulong)(k + i)) * 0x100000001b3;
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static ulong Probe(ulong h, int j) => (h ^ (ulong)j) * 0x9e3779b97f4a7c15;
}
