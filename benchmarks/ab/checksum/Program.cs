// checksum: the test program of an A/B pair of workloads (a suite's
// workload `against:` another). Two builds of this one source: base/ and
// head/, where head's Mix does 20% more rounds (the HEAD constant), the
// kind of change a pull request makes to one method. Everything else is
// the same, so head's kernel is about 20% slower.
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.AbChecksum;

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "checksum",
            new Option("blocks", "4000", "how many 4 KiB blocks are checksummed"));
        int blocks = args.Scaled("blocks");
        var data = new byte[4096];
        new Random(42).NextBytes(data);

        long start = Clock.Start();
        ulong sum = Run(data, blocks);
        long elapsed = Clock.ElapsedNs(start);

        new VbenchLine(elapsed, sum.ToString("x16")).Add("blocks", blocks).Print();
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Run(byte[] data, int blocks)
    {
        ulong sum = 0;
        for (int i = 0; i < blocks; i++)
            sum ^= Mix(data, (ulong)i);
        return sum;
    }

#if HEAD
    private const int Rounds = 6; // 20% more work than base
#else
    private const int Rounds = 5;
#endif

    /// <summary>The method the two builds differ in.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Mix(byte[] data, ulong seed)
    {
        ulong h = seed ^ 0x9e3779b97f4a7c15;
        for (int r = 0; r < Rounds; r++)
            foreach (byte b in data)
                h = (h ^ b) * 0x100000001b3;
        return h;
    }
}
