// vbench's startup hook: the runtime calls StartupHook.Initialize just
// before Main in every process whose DOTNET_STARTUP_HOOKS names this
// assembly. It records, in <VBENCH_HOOK_DIR>/<pid> (one file per process,
// so the processes of a tree never write the same file):
//
//   start mono_ns=<CLOCK_MONOTONIC at the call, ns>
//   exit gc0=<n> gc1=<n> gc2=<n> pause_ns=<n> alloc_bytes=<n> jit_ns=<n> hwm_bytes=<n>
//
// the second line from AppDomain.ProcessExit: absent when the process never
// exits normally (a crash, FailFast, SIGKILL). vbench reads the clock right
// before it starts the process; the difference is the process's start-up.
// It must never fail the program: every error is swallowed.
//
// It calls as little of the framework as it can: libc for the file and the
// environment, its own digits for the numbers. A profiler that hooks every
// method's entry and leave (vbench's tracing, any ELT profiler) makes the
// runtime JIT-compile every method called instead of running its
// precompiled code, and the hook's File and string calls cost ~40 ms before
// Main and ~44 ms at exit of each process traced (2026-11-27): charged to
// the profiler's whole-program cost, and shown in its profile, where an A/B
// pair's why once named the hook's exit as the path that grew.
using System;
using System.Diagnostics;
using System.Runtime.InteropServices;

public static unsafe class StartupHook
{
    const int O_RDONLY = 0, O_WRONLY = 1, O_CREAT = 0x40, O_APPEND = 0x400;

    static byte[]? file; // <dir>/<pid>, NUL-terminated

    public static void Initialize()
    {
        long now = Stopwatch.GetTimestamp();
        try
        {
            byte* dir;
            fixed (byte* name = "VBENCH_HOOK_DIR\0"u8)
            {
                dir = getenv(name);
            }
            if (dir == null || *dir == 0)
            {
                return;
            }
            int n = 0;
            while (dir[n] != 0)
            {
                n++;
            }
            byte* pid = stackalloc byte[24];
            int digits = Digits(pid, 0, getpid());
            byte[] f = new byte[n + 1 + digits + 1];
            for (int i = 0; i < n; i++)
            {
                f[i] = dir[i];
            }
            f[n] = (byte)'/';
            for (int i = 0; i < digits; i++)
            {
                f[n + 1 + i] = pid[i];
            }
            file = f; // its last byte is the NUL new left
            byte* line = stackalloc byte[64];
            int at = Text(line, 0, "start mono_ns=");
            at = Digits(line, at, Nanoseconds(now));
            line[at++] = (byte)'\n';
            Append(line, at);
            AppDomain.CurrentDomain.ProcessExit += Exit;
        }
        catch
        {
        }
    }

    static void Exit(object? sender, EventArgs e)
    {
        try
        {
            byte* line = stackalloc byte[256];
            int at = Text(line, 0, "exit gc0=");
            at = Digits(line, at, GC.CollectionCount(0));
            at = Text(line, at, " gc1=");
            at = Digits(line, at, GC.CollectionCount(1));
            at = Text(line, at, " gc2=");
            at = Digits(line, at, GC.CollectionCount(2));
            at = Text(line, at, " pause_ns=");
            at = Digits(line, at, GC.GetTotalPauseDuration().Ticks * 100); // a tick is 100 ns
            at = Text(line, at, " alloc_bytes=");
            at = Digits(line, at, GC.GetTotalAllocatedBytes(true));
            at = Text(line, at, " jit_ns=");
            at = Digits(line, at, System.Runtime.JitInfo.GetCompilationTime(false).Ticks * 100);
            long hwm = PeakRSS();
            if (hwm > 0)
            {
                at = Text(line, at, " hwm_bytes=");
                at = Digits(line, at, hwm);
            }
            line[at++] = (byte)'\n';
            Append(line, at);
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

    // PeakRSS is the process's own peak resident memory in bytes (VmHWM of
    // /proc/self/status, kept by the kernel since its exec), or 0 where it
    // cannot be read. The rusage vbench gets at wait counts the forking
    // parent's peak too (a vforked child shares vbench's memory until exec),
    // which a small program's own peak is far below.
    static long PeakRSS()
    {
        const int size = 8192;
        byte* buf = stackalloc byte[size];
        int fd;
        fixed (byte* path = "/proc/self/status\0"u8)
        {
            fd = open(path, O_RDONLY, 0);
        }
        if (fd < 0)
        {
            return 0;
        }
        int len = 0;
        for (nint got; len < size && (got = read(fd, buf + len, size - len)) > 0;)
        {
            len += (int)got;
        }
        close(fd);
        // "VmHWM:\t    1234 kB" at the start of a line.
        for (int i = 0; i + 6 <= len; i++)
        {
            if ((i == 0 || buf[i - 1] == '\n') && buf[i] == 'V' && buf[i + 1] == 'm' && buf[i + 2] == 'H' &&
                buf[i + 3] == 'W' && buf[i + 4] == 'M' && buf[i + 5] == ':')
            {
                int j = i + 6;
                while (j < len && (buf[j] == ' ' || buf[j] == '\t'))
                {
                    j++;
                }
                long kb = 0;
                int start = j;
                while (j < len && buf[j] >= '0' && buf[j] <= '9')
                {
                    kb = kb * 10 + (buf[j++] - '0');
                }
                bool unit = j + 3 <= len && buf[j] == ' ' && buf[j + 1] == 'k' && buf[j + 2] == 'B';
                return j > start && unit ? kb * 1024 : 0;
            }
        }
        return 0;
    }

    // Append writes line[0..n) at the end of the process's file.
    static void Append(byte* line, int n)
    {
        fixed (byte* path = file)
        {
            int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0x1a4); // 0644
            if (fd < 0)
            {
                return;
            }
            write(fd, line, n);
            close(fd);
        }
    }

    // Text writes ASCII s at buf[at] and returns where it ended.
    static int Text(byte* buf, int at, string s)
    {
        for (int i = 0; i < s.Length; i++)
        {
            buf[at++] = (byte)s[i];
        }
        return at;
    }

    // Digits writes non-negative v in decimal at buf[at] and returns where
    // it ended (a negative v as 0: the fields are counts and times).
    static int Digits(byte* buf, int at, long v)
    {
        if (v <= 0)
        {
            buf[at] = (byte)'0';
            return at + 1;
        }
        int n = 0;
        for (long x = v; x > 0; x /= 10)
        {
            n++;
        }
        for (int i = at + n - 1; i >= at; i--, v /= 10)
        {
            buf[i] = (byte)('0' + v % 10);
        }
        return at + n;
    }

    [DllImport("libc")]
    static extern byte* getenv(byte* name);

    [DllImport("libc")]
    static extern int getpid();

    [DllImport("libc")]
    static extern int open(byte* path, int flags, int mode);

    [DllImport("libc")]
    static extern nint read(int fd, byte* buf, nint count);

    [DllImport("libc")]
    static extern nint write(int fd, byte* buf, nint count);

    [DllImport("libc")]
    static extern int close(int fd);
}
