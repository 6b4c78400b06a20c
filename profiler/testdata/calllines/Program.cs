// Main calls Walk on one line (WALK) and then Tally on the next (TALLY):
// Walk does 39 times Tally's work, so 97.5 % of the time Main spends in
// its calls is on the WALK line and 2.5 % on TALLY's. The test finds the lines by their markers.
using System;
using System.Runtime.CompilerServices;

namespace CallSites
{
    public static class Program
    {
        // Program [units of work, each ~1 ms]
        public static int Main(string[] args)
        {
            int units = args.Length > 0 ? int.Parse(args[0]) : 1000;
            long walked = Walk(units * 39 / 40); // WALK
            long tallied = Tally(units / 40); // TALLY
            Console.WriteLine($"walked {walked}, tallied {tallied}");
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Walk(int units)
        {
            long s = 0;
            for (int i = 0; i < units; i++)
                s += Step(i);
            return s;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Tally(int units)
        {
            long s = 0;
            for (int i = 0; i < units; i++)
                s ^= Step(i);
            return s;
        }

        // About a millisecond of arithmetic.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Step(int seed)
        {
            long a = seed | 1;
            for (int k = 0; k < 1_000_000; k++)
                a = a * 31 + (k ^ (a >> 7));
            return a;
        }
    }
}
