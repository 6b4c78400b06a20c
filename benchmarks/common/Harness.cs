// Harness.cs is linked into every workload (see ../Directory.Build.props): the
// argument conventions and the VBENCH line the vbench harness parses.
//
//   dotnet X.dll [--scale F] [--name value | --name=value ...]
//   VBENCH elapsed_ns=<int> cpu_ns=<int> checksum=<string> [calls.<Function>=<int> ...] [share.<Function>=<fraction> ...] [key=value ...]
//
// Unknown or malformed arguments: a message on stderr and exit code 2.
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

namespace Vbench.Common;

/// <summary>One option a workload accepts, with its default and a help line.</summary>
public readonly record struct Option(string Name, string Default, string Help);

/// <summary>Parsed command line: --scale (always accepted) plus the workload's own options.</summary>
public sealed class Args
{
    public const int ExitUsage = 2;

    private readonly string _program;
    private readonly Dictionary<string, string> _values;

    /// <summary>The work multiplier: 1.05 does about 5% more work.</summary>
    public double Scale { get; }

    private Args(string program, Dictionary<string, string> values, double scale)
    {
        _program = program;
        _values = values;
        Scale = scale;
    }

    /// <summary>
    /// Parses argv against the known options; on --help prints usage and exits 0,
    /// on anything unknown or malformed prints why on stderr and exits 2.
    /// </summary>
    public static Args Parse(string[] argv, string program, params Option[] options)
    {
        var all = new List<Option>(options) { new("scale", "1.0", "work multiplier (1.05 = 5% more work)") };
        var values = all.ToDictionary(o => o.Name, o => o.Default);
        for (int i = 0; i < argv.Length; i++)
        {
            string a = argv[i];
            if (a is "-h" or "--help")
            {
                Console.Out.Write(Usage(program, all));
                Environment.Exit(0);
            }
            if (!a.StartsWith("--", StringComparison.Ordinal))
                Fail(program, all, $"unexpected argument '{a}'");
            string name = a[2..];
            string? value = null;
            int eq = name.IndexOf('=');
            if (eq >= 0)
            {
                value = name[(eq + 1)..];
                name = name[..eq];
            }
            if (!values.ContainsKey(name))
                Fail(program, all, $"unknown argument '--{name}'");
            if (value is null)
            {
                if (i + 1 >= argv.Length)
                    Fail(program, all, $"--{name} needs a value");
                value = argv[++i];
            }
            values[name] = value;
        }

        if (!double.TryParse(values["scale"], NumberStyles.Float, CultureInfo.InvariantCulture, out double scale)
            || !double.IsFinite(scale) || scale <= 0)
            Fail(program, all, $"--scale must be a positive number, got '{values["scale"]}'");
        return new Args(program, values, scale);
    }

    /// <summary>An integer option, at least min.</summary>
    public int Int(string name, int min = 1)
    {
        string s = _values[name];
        if (!int.TryParse(s, NumberStyles.Integer, CultureInfo.InvariantCulture, out int v) || v < min)
            Die($"--{name} must be an integer >= {min}, got '{s}'");
        return v;
    }

    /// <summary>An integer option multiplied by --scale and rounded (at least 1).</summary>
    public int Scaled(string name)
    {
        long v = Scaled((long)Int(name));
        if (v > int.MaxValue)
            Die($"--{name} {Int(name)} times --scale {Scale} is too large");
        return (int)v;
    }

    /// <summary>An amount of work multiplied by --scale and rounded (at least 1).</summary>
    public long Scaled(long amount) =>
        Math.Max(1, (long)Math.Min(long.MaxValue, Math.Round(amount * Scale, MidpointRounding.AwayFromZero)));

    /// <summary>A floating-point option.</summary>
    public double Double(string name)
    {
        string s = _values[name];
        if (!double.TryParse(s, NumberStyles.Float, CultureInfo.InvariantCulture, out double v) || !double.IsFinite(v))
            Die($"--{name} must be a number, got '{s}'");
        return v;
    }

    /// <summary>A string option; empty means not given.</summary>
    public string String(string name) => _values[name];

    /// <summary>Reports a bad value (stderr) and exits 2.</summary>
    [DoesNotReturn]
    public void Die(string message)
    {
        Console.Error.WriteLine($"{_program}: {message}");
        Environment.Exit(ExitUsage);
    }

    [DoesNotReturn]
    private static void Fail(string program, List<Option> all, string message)
    {
        Console.Error.WriteLine($"{program}: {message}");
        Console.Error.Write(Usage(program, all));
        Environment.Exit(ExitUsage);
    }

    private static string Usage(string program, List<Option> all)
    {
        var sb = new StringBuilder();
        sb.Append($"usage: dotnet {System.Reflection.Assembly.GetEntryAssembly()?.GetName().Name ?? program}.dll [options]\n");
        foreach (var o in all)
            sb.Append($"  --{o.Name,-12} {o.Help} (default {(o.Default == "" ? "none" : o.Default)})\n");
        sb.Append("Prints one line: VBENCH elapsed_ns=<int> cpu_ns=<int> checksum=<string> [calls.<Function>=<int> ...] [share.<Function>=<fraction> ...]\n");
        return sb.ToString();
    }
}

/// <summary>
/// Times the measured kernel: its elapsed time with Stopwatch's raw ticks and
/// the CPU time the whole process (every thread: the kernel's, the GC's, a
/// profiler's) spent meanwhile. Start() and ElapsedNs() bracket the kernel;
/// the CPU time between them is kept for the VBENCH line (cpu_ns), which is
/// what vbench's verdicts judge: on a shared machine a process waiting for a
/// core adds to its elapsed time but not to its CPU time.
/// </summary>
public static class Clock
{
    private static TimeSpan _cpuStart;

    /// <summary>The kernel's CPU time, set by ElapsedNs; -1 before.</summary>
    public static long CpuNs { get; private set; } = -1;

    public static long Start()
    {
        KernelMarks.Prepare(); // before the clocks: loading the marks is not the kernel's
        _cpuStart = Environment.CpuUsage.TotalTime;
        KernelMarks.Begin();
        return Stopwatch.GetTimestamp();
    }

    public static long ElapsedNs(long start)
    {
        long ticks = Stopwatch.GetTimestamp() - start;
        KernelMarks.End();
        CpuNs = (Environment.CpuUsage.TotalTime - _cpuStart).Ticks * 100;
        return (long)((Int128)ticks * 1_000_000_000 / Stopwatch.Frequency);
    }
}

/// <summary>
/// vbench's kernel marks: under metric kernel-instructions, VBENCH_KERNEL_MARKS names a native
/// library whose two functions are callgrind's client requests to start and stop counting
/// (runner/kernelmarks.go), called around the kernel. Unset (every other metric): nothing.
/// </summary>
public static class KernelMarks
{
    private delegate void Mark();

    private static readonly Mark? _begin, _end;

    static KernelMarks()
    {
        string? lib = Environment.GetEnvironmentVariable("VBENCH_KERNEL_MARKS");
        if (string.IsNullOrEmpty(lib) || !NativeLibrary.TryLoad(lib, out IntPtr handle))
            return;
        _begin = Marshal.GetDelegateForFunctionPointer<Mark>(NativeLibrary.GetExport(handle, "vbench_kernel_begin"));
        _end = Marshal.GetDelegateForFunctionPointer<Mark>(NativeLibrary.GetExport(handle, "vbench_kernel_end"));
        _end(); // its marshalling stub is compiled here, not counted inside the kernel (stopping what has not started does nothing)
    }

    /// <summary>
    /// Runs the class's initialiser and compiles Begin and End, so that neither the library's
    /// load nor the JIT falls between the kernel's clocks (~2.5M instructions, ~1 ms of CPU).
    /// </summary>
    public static void Prepare()
    {
        RuntimeHelpers.PrepareMethod(typeof(KernelMarks).GetMethod(nameof(Begin))!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(KernelMarks).GetMethod(nameof(End))!.MethodHandle);
    }

    public static void Begin() => _begin?.Invoke();

    public static void End() => _end?.Invoke();
}

/// <summary>Builds and prints the one VBENCH line.</summary>
public sealed class VbenchLine
{
    private readonly StringBuilder _sb = new("VBENCH");

    public VbenchLine(long elapsedNs, string checksum)
    {
        Add("elapsed_ns", elapsedNs);
        if (Clock.CpuNs >= 0)
            Add("cpu_ns", Clock.CpuNs);
        Add("checksum", checksum);
    }

    /// <summary>The exact number of calls Function (Namespace.Type.Method) receives in the whole process.</summary>
    public VbenchLine Calls(string function, long n) => Add("calls." + function, n);

    /// <summary>
    /// The share of the work Function (Namespace.Type.Method) does, known by construction: of the
    /// samples whose stack holds any function the line gives a share for, the fraction holding this one.
    /// The shares of a line partition the work: they sum to 1 and none of the functions calls another.
    /// </summary>
    public VbenchLine Share(string function, double fraction) => Add("share." + function, fraction);

    public VbenchLine Add(string key, long value) => Add(key, value.ToString(CultureInfo.InvariantCulture));

    public VbenchLine Add(string key, double value) => Add(key, value.ToString("R", CultureInfo.InvariantCulture));

    public VbenchLine Add(string key, string value)
    {
        if (key.Length == 0 || value.Length == 0 || key.Any(c => char.IsWhiteSpace(c) || c == '=') || value.Any(char.IsWhiteSpace))
            throw new ArgumentException($"bad VBENCH token {key}={value}");
        _sb.Append(' ').Append(key).Append('=').Append(value);
        return this;
    }

    public void Print() => Console.Out.WriteLine(_sb.ToString());
}

/// <summary>FNV-1a over 64-bit words: an order-sensitive checksum.</summary>
public static class Fnv
{
    public const ulong Offset = 14695981039346656037UL;
    private const ulong Prime = 1099511628211UL;

    public static ulong Mix(ulong h, ulong v)
    {
        for (int i = 0; i < 8; i++)
        {
            h ^= v & 0xff;
            h *= Prime;
            v >>= 8;
        }
        return h;
    }

    public static string Hex(ulong h) => h.ToString("x16", CultureInfo.InvariantCulture);
}
