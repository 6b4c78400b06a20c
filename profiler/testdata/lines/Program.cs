// Two loops in one method split its work 3:1 on two known lines (the
// lines marked HOT and COLD), and a line executed exactly n/2 times (HALF).
// The tests find the lines by their markers, so editing above them is safe;
// the program finds them itself (CallerLineNumber on the same line) for the
// ground truth its VBENCH line declares: lineshare.* for HOT and COLD, and
// line.* (exact executions) for HALF.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace LineSplit
{
    public static class Work
    {
        public static int HotLine, ColdLine, HalfLine;

        static int Line([CallerLineNumber] int line = 0) => line;

        // One is 1, and notes the line it is called from.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int One([CallerLineNumber] int line = 0)
        {
            HalfLine = line;
            return 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Split(int n)
        {
            long a = 1, b = 1;
            HotLine = Line(); for (int i = 0; i < 3 * n; i++) a = a * 31 + (i ^ (a >> 7)); // HOT
            ColdLine = Line(); for (int i = 0; i < n; i++) b = b * 31 + (i ^ (b >> 7)); // COLD
            return a + b;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Half(int n)
        {
            int even = 0;
            for (int i = 0; i < n; i++)
            {
                if ((i & 1) == 0)
                    even += One(); // HALF
            }
            return even;
        }
    }

    public static class Program
    {
        // Program <milliseconds of Split> [n for Half] [HALF's executions to
        // declare: (n+1)/2 unless told; another count tests the check]
        public static int Main(string[] args)
        {
            int ms = args.Length > 0 ? int.Parse(args[0]) : 1000;
            int half = args.Length > 1 ? int.Parse(args[1]) : 1000;
            int claim = args.Length > 2 ? int.Parse(args[2]) : (half + 1) / 2;
            var sw = Stopwatch.StartNew();
            long sum = 0;
            int calls = 0;
            while (sw.ElapsedMilliseconds < ms)
            {
                // 40 ms a call: far longer than a sampling interval, so the
                // sampler's period cannot lock onto the loops' (a call of
                // ~1 ms read 0.65 to 0.84 by aliasing).
                sum += Work.Split(10_000_000);
                calls++;
            }
            int even = Work.Half(half);
            long ns = (long)(sw.Elapsed.TotalMilliseconds * 1e6);
            Console.WriteLine($"split {calls} calls, sum {sum}; half {even} of {half}");
            Console.WriteLine($"VBENCH elapsed_ns={ns} checksum={even} lineshare.Program.cs:{Work.HotLine}=0.75 lineshare.Program.cs:{Work.ColdLine}=0.25 line.Program.cs:{Work.HalfLine}={claim}");
            return 0;
        }
    }
}
