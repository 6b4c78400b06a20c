// vbench's startup hook: the runtime calls StartupHook.Initialize just
// before Main in every process whose DOTNET_STARTUP_HOOKS names this
// assembly. It records, in <VBENCH_HOOK_DIR>/<pid> (one file per process,
// so the processes of a tree never write the same file):
//
//   start mono_ns=<CLOCK_MONOTONIC at the call, ns>
//   exit gc0=<n> gc1=<n> gc2=<n> pause_ns=<n> alloc_bytes=<n> hwm_bytes=<n>
//
// the second line from AppDomain.ProcessExit: absent when the process never
// exits normally (a crash, FailFast, SIGKILL). vbench reads the clock right
// before it starts the process; the difference is the process's start-up.
// It must never fail the program: every error is swallowed.
using System;
using System.Diagnostics;
using System.IO;

public static class StartupHook
{
    public static void Initialize()
    {
        long now = Stopwatch.GetTimestamp();
        try
        {
            string? dir = Environment.GetEnvironmentVariable("VBENCH_HOOK_DIR");
            if (string.IsNullOrEmpty(dir))
            {
                return;
            }
            string file = Path.Combine(dir, Environment.ProcessId.ToString());
            File.AppendAllText(file, "start mono_ns=" + Nanoseconds(now) + "\n");
            AppDomain.CurrentDomain.ProcessExit += (_, _) => Exit(file);
        }
        catch
        {
        }
    }

    // Nanoseconds converts a Stopwatch timestamp: on Linux it is
    // CLOCK_MONOTONIC in ns already (Frequency 1e9), converted otherwise.
    static long Nanoseconds(long ts)
    {
        long f = Stopwatch.Frequency;
        return f == 1_000_000_000 ? ts : (long)((decimal)ts * 1_000_000_000m / f);
    }

    // PeakRSS is " hwm_bytes=<n>": the process's own peak resident memory
    // (VmHWM of /proc/self/status, kept by the kernel since its exec), or ""
    // where it cannot be read. The rusage vbench gets at wait counts the
    // forking parent's peak too (a vforked child shares vbench's memory until
    // exec), which a small program's own peak is far below.
    static string PeakRSS()
    {
        try
        {
            foreach (string line in File.ReadLines("/proc/self/status"))
            {
                if (line.StartsWith("VmHWM:", StringComparison.Ordinal))
                {
                    string kb = line.Substring(6).Trim();
                    if (kb.EndsWith(" kB", StringComparison.Ordinal) && long.TryParse(kb.AsSpan(0, kb.Length - 3), out long n))
                    {
                        return " hwm_bytes=" + (n * 1024);
                    }
                }
            }
        }
        catch
        {
        }
        return "";
    }

    static void Exit(string file)
    {
        try
        {
            long pause = GC.GetTotalPauseDuration().Ticks * 100; // a tick is 100 ns
            File.AppendAllText(file, "exit gc0=" + GC.CollectionCount(0) + " gc1=" + GC.CollectionCount(1) +
                " gc2=" + GC.CollectionCount(2) + " pause_ns=" + pause +
                " alloc_bytes=" + GC.GetTotalAllocatedBytes(true) + PeakRSS() + "\n");
        }
        catch
        {
        }
    }
}
