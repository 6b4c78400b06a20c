// A process tree: "spawn CODE CHILD..." starts each CHILD as another .NET
// process running this program, does work of its own, waits for the children
// and exits with CODE. "spawnbench" is the same as a harness workload.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;

namespace VbTest
{
    public static class Spawner
    {
        // Each child is "scenario:n" (run as `dotnet VbTestApp.dll scenario n`,
        // sharing this process's stdout), "hang" (a child that is killed
        // with SIGKILL as soon as it runs, before it can write a profile) or
        // "orphan" (a child left running: the parent exits without it).
        // The parent runs Loop.Run(500) itself while its children run.
        //
        // bench: the children's output is swallowed and the parent prints one
        // VBENCH line instead, with the calls of the whole tree: its own 500
        // Loop.Step, each loop child's n, each recursion child's Fib calls.
        public static int Run(int code, string[] children, bool bench = false)
        {
            var sw = Stopwatch.StartNew();
            string dll = typeof(Program).Assembly.Location;
            var started = new List<(Process p, string spec)>();
            long steps = 500, fibs = 0;
            foreach (string spec in children)
            {
                var psi = new ProcessStartInfo(Environment.ProcessPath) { UseShellExecute = false };
                psi.ArgumentList.Add(dll);
                string[] parts = spec.Split(':');
                bool orphan = spec == "orphan";
                if (orphan) psi.ArgumentList.Add("hang");
                else foreach (string a in parts) psi.ArgumentList.Add(a);
                if (parts[0] == "loop") steps += int.Parse(parts[1]);
                if (parts[0] == "recursion") fibs += 2 * Fib0(int.Parse(parts[1]) + 1) - 1;
                bool hang = spec == "hang";
                psi.RedirectStandardOutput = hang || orphan || bench;
                var p = Process.Start(psi);
                if (hang || orphan) p.StandardOutput.ReadLine(); // it runs, profiled
                if (hang) p.Kill();
                if (orphan)
                {
                    Console.WriteLine("child " + p.Id + " orphan left running");
                    continue;
                }
                if (bench) p.StandardOutput.ReadToEndAsync();
                started.Add((p, spec));
            }
            if (bench)
                for (int i = 0; i < 500; i++) Loop.Step(i);
            else
                Loop.Run(500);
            var codes = new List<string>();
            foreach (var (p, spec) in started)
            {
                p.WaitForExit();
                codes.Add(p.ExitCode.ToString());
                if (!bench) Console.WriteLine("child " + p.Id + " " + spec + " exited " + p.ExitCode);
            }
            if (bench)
                Console.WriteLine("VBENCH elapsed_ns=" + (long)(sw.Elapsed.TotalMilliseconds * 1e6) + " checksum=" + string.Join("/", codes) +
                    " calls.VbTest.Loop.Step=" + steps + (fibs > 0 ? " calls.VbTest.Recursion.Fib=" + fibs : ""));
            return code;
        }

        static long Fib0(int n) { long a = 0, b = 1; for (int i = 0; i < n; i++) { long t = a + b; a = b; b = t; } return a; }

        public static void Hang()
        {
            Console.WriteLine("hanging");
            Console.Out.Flush();
            Thread.Sleep(Timeout.Infinite);
        }
    }
}
