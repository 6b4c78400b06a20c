// jitstorm: thousands of distinct methods, each called once, so each is
// JIT'd once: Gen.M0000... (Generated.cs, written by ./gen) and one
// instantiation of Generic.Visit<T> per generated struct type (value-type
// instantiations get their own code). Nearly all the time is the JIT and the
// runtime's type loading; there is almost nothing per call. Stresses a
// profiler's per-function callbacks (JITCompilationStarted/Finished,
// FunctionIDMapper, metadata lookups for names) rather than its per-call hooks.
//
// M = round(--methods * --scale) of the Gen.MethodCount generated methods and
// G = round(--generics * --scale) of the Gen.StructCount structs are used
// (the defaults are half of each, so --scale goes up to 2).
// Exact calls in the whole process (no in-process warm-up: that would JIT
// everything before the clock starts), every one on the VBENCH line (2,000
// and more entries: the harness checks each generated method):
//   Vbench.JitStorm.Gen.M0000 ... M<M-1>                  = 1 each
//   Vbench.JitStorm.Gen.MethodBatch000 ... <ceil(M/100)-1> = 1 each
//   Vbench.JitStorm.Gen.GenericBatch000 ... <ceil(G/100)-1> = 1 each
//   Vbench.JitStorm.Generic.Visit<T>                      = G (G instantiations, 1 call each)
//   Vbench.JitStorm.Gen.CallMethods                       = 1
//   Vbench.JitStorm.Gen.CallGenerics                      = 1
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.JitStorm;

/// <summary>What every generated struct provides: a distinct constant.</summary>
public interface ITag
{
    ulong Salt { get; }
}

public static class Generic
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong Visit<T>(ulong x) where T : struct, ITag => (x ^ default(T).Salt) * 0x9E3779B97F4A7C15UL + 1;
}

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "jitstorm",
            new Option("methods", (Gen.MethodCount / 2).ToString(), $"generated methods to call (times --scale; at most {Gen.MethodCount})"),
            new Option("generics", (Gen.StructCount / 2).ToString(), $"generic instantiations to call (times --scale; at most {Gen.StructCount})"));
        int methods = args.Scaled("methods");
        int generics = args.Scaled("generics");
        if (methods > Gen.MethodCount)
            args.Die($"--methods times --scale is {methods}, but only {Gen.MethodCount} methods are generated (see gen/)");
        if (generics > Gen.StructCount)
            args.Die($"--generics times --scale is {generics}, but only {Gen.StructCount} structs are generated (see gen/)");

        long start = Clock.Start();
        ulong x = Gen.CallMethods(0x1234, methods);
        x = Gen.CallGenerics(x, generics);
        long elapsed = Clock.ElapsedNs(start);

        var line = new VbenchLine(elapsed, Fnv.Hex(x));
        for (int i = 0; i < methods; i++)
            line.Calls($"Vbench.JitStorm.Gen.M{i:D4}", 1);
        // Gen.Call* go through batches of Gen.BatchSize calls, each called once
        // when the count reaches it.
        for (int b = 0; b * Gen.BatchSize < methods; b++)
            line.Calls($"Vbench.JitStorm.Gen.MethodBatch{b:D3}", 1);
        for (int b = 0; b * Gen.BatchSize < generics; b++)
            line.Calls($"Vbench.JitStorm.Gen.GenericBatch{b:D3}", 1);
        line.Calls("Vbench.JitStorm.Generic.Visit<T>", generics)
            .Calls("Vbench.JitStorm.Gen.CallMethods", 1)
            .Calls("Vbench.JitStorm.Gen.CallGenerics", 1)
            .Add("methods", methods)
            .Add("generics", generics)
            .Print();
        return 0;
    }
}
