// dispatch: the ways C# calls a method besides a plain static call —
// interface calls (three classes), constrained calls on a struct, virtual
// calls with overrides that call base, generic types and generic methods
// instantiated over value and reference types (specialised vs shared code),
// a generic virtual method, and a LINQ pipeline calling delegates. Stresses
// a profiler's function naming (generic instantiations summed under one
// name) and its per-call cost on short calls.
//
// K = round(--rounds * --scale) rounds over an array of L = --length values.
// In round r, for every index j (c0/c1/c2 = how many j in [0,L) have j%3 == 0/1/2):
//   interface: ops[j % 3].Apply(data[j])  with ops = {AddOp, MulOp, XorOp}
//   generic:   Kernels.Fold(ShiftOp, data), Kernels.Fold<IOp>(ops[r % 3], data)   (once per round)
//   virtual:   shapes[j % 3].Scale(data[j] & 15)  with shapes = {Rect, Square, Circle}
//   Box<long>.Get, Box<string>.Get, Identity<long>, Identity<string>,
//   SizeVisitor.Visit<long>, SizeVisitor.Visit<string>
//   LINQ:      data.Where(IsKept).Select(Project).Sum()                        (once per round)
// Exact calls in the whole process (no in-process warm-up), r0/r1/r2 = how
// many r in [0,K) have r%3 == 0/1/2, kept = #{j : data[j] % 3 != 0}:
//   Vbench.Dispatch.AddOp.Apply          = K*c0 + L*r0
//   Vbench.Dispatch.MulOp.Apply          = K*c1 + L*r1
//   Vbench.Dispatch.XorOp.Apply          = K*c2 + L*r2
//   Vbench.Dispatch.ShiftOp.Apply        = K*L
//   Vbench.Dispatch.Kernels.Fold<TOp>    = 2*K
//   Vbench.Dispatch.Shape.Scale          = K*L
//   Vbench.Dispatch.Circle.Scale         = K*c2
//   Vbench.Dispatch.Rect.Area            = K*(c0 + c1)
//   Vbench.Dispatch.Square.Area          = K*c1
//   Vbench.Dispatch.Circle.Area          = K*c2
//   Vbench.Dispatch.Box<T>.Get           = 2*K*L
//   Vbench.Dispatch.Kernels.Identity<T>  = 2*K*L
//   Vbench.Dispatch.SizeVisitor.Visit<T> = 2*K*L
//   Vbench.Dispatch.Kernels.IsKept       = K*L
//   Vbench.Dispatch.Kernels.Project      = K*kept
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.Dispatch;

public static class Program
{
    private static readonly string[] Names = ["a", "bb", "ccc", "dddd", "eeeee"];

    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "dispatch",
            new Option("rounds", "6000", "passes over the data (times --scale)"),
            new Option("length", "1000", "length of the data array"));
        int k = args.Scaled("rounds");
        int l = args.Int("length");

        var data = new long[l];
        for (int j = 0; j < l; j++)
            data[j] = (j * 7919L + 13) % 10007;

        long start = Clock.Start();
        long acc = Run(k, data);
        long elapsed = Clock.ElapsedNs(start);

        long Mod3(long n, int c) => n / 3 + (n % 3 > c ? 1 : 0); // #{x in [0,n) : x % 3 == c}
        long c0 = Mod3(l, 0), c1 = Mod3(l, 1), c2 = Mod3(l, 2);
        long r0 = Mod3(k, 0), r1 = Mod3(k, 1), r2 = Mod3(k, 2);
        long kept = data.Count(x => x % 3 != 0);
        long kl = (long)k * l;
        new VbenchLine(elapsed, acc.ToString())
            .Calls("Vbench.Dispatch.Program.Run", 1)
            .Calls("Vbench.Dispatch.AddOp.Apply", k * c0 + l * r0)
            .Calls("Vbench.Dispatch.MulOp.Apply", k * c1 + l * r1)
            .Calls("Vbench.Dispatch.XorOp.Apply", k * c2 + l * r2)
            .Calls("Vbench.Dispatch.ShiftOp.Apply", kl)
            .Calls("Vbench.Dispatch.Kernels.Fold<TOp>", 2L * k)
            .Calls("Vbench.Dispatch.Shape.Scale", kl)
            .Calls("Vbench.Dispatch.Circle.Scale", k * c2)
            .Calls("Vbench.Dispatch.Rect.Area", k * (c0 + c1))
            .Calls("Vbench.Dispatch.Square.Area", k * c1)
            .Calls("Vbench.Dispatch.Circle.Area", k * c2)
            .Calls("Vbench.Dispatch.Box<T>.Get", 2 * kl)
            .Calls("Vbench.Dispatch.Kernels.Identity<T>", 2 * kl)
            .Calls("Vbench.Dispatch.SizeVisitor.Visit<T>", 2 * kl)
            .Calls("Vbench.Dispatch.Kernels.IsKept", kl)
            .Calls("Vbench.Dispatch.Kernels.Project", k * kept)
            .Add("rounds", k)
            .Add("length", l)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Run(int rounds, long[] data)
    {
        IOp[] ops = [new AddOp(), new MulOp(), new XorOp()];
        Shape[] shapes = [new Rect(), new Square(), new Circle()];
        var longBox = new Box<long>(11);
        var stringBox = new Box<string>("boxed");
        Visitor visitor = new SizeVisitor();

        long acc = 0;
        for (int r = 0; r < rounds; r++)
        {
            for (int j = 0; j < data.Length; j++)
            {
                long x = data[j];
                acc += ops[j % 3].Apply(x);
                acc += shapes[j % 3].Scale(x & 15);
                acc += longBox.Get() + stringBox.Get().Length;
                acc += Kernels.Identity(x) + Kernels.Identity(Names[j % Names.Length]).Length;
                acc += visitor.Visit(x) + visitor.Visit(Names[j % Names.Length]);
            }
            acc += Kernels.Fold(default(ShiftOp), data);
            acc += Kernels.Fold(ops[r % 3], data);
            acc += data.Where(Kernels.IsKept).Select(Kernels.Project).Sum();
        }
        return acc;
    }
}
