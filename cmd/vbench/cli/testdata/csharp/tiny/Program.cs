// Sums 1..n and reports the VBENCH line the harness parses.
using System.Diagnostics;

int n = args.Length > 0 ? int.Parse(args[0]) : 1000;
var sw = Stopwatch.StartNew();
long sum = 0;
for (int i = 1; i <= n; i++) sum += i;
sw.Stop();
long ns = (long)(sw.ElapsedTicks * (1_000_000_000.0 / Stopwatch.Frequency));
Console.WriteLine($"VBENCH elapsed_ns={ns} checksum={sum}");
