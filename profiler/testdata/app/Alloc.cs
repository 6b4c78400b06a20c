// Allocation scenarios for the allocation engines: known counts of known
// types along known paths, every object kept (it escapes: none can be
// stack-allocated), and a known number of induced collections per
// generation. The allocating methods are optimized at once (no tier-0 code,
// no on-stack replacement of their loops) and never inlined, so each is a
// frame of its own on every path, but for Ledger's, which is tiered as a
// program's own code is by default.
using System;
using System.Runtime.CompilerServices;

namespace VbTest
{
    public sealed class AllocNode
    {
        public int A;
        public long B;
        public object C;
    }

    public sealed class AllocPair
    {
        public object Left, Right;
    }

    public static class Allocs
    {
        static object[] keep = new object[1 << 16];
        static int next;

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Keep(object o) { keep[next++ & (keep.Length - 1)] = o; }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public static void Nodes(int n)
        {
            for (int i = 0; i < n; i++) Keep(new AllocNode { A = i });
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public static void Arrays(int n)
        {
            for (int i = 0; i < n; i++) Keep(new int[16]);
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public static void Strings(int n)
        {
            for (int i = 0; i < n; i++) Keep(new string('x', 8 + (i & 7)));
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public static void Outer(int n)
        {
            for (int i = 0; i < n; i++) Keep(new AllocPair());
            Inner(5 * n);
        }

        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public static void Inner(int n)
        {
            for (int i = 0; i < n; i++) Keep(new AllocPair());
        }

        // Run prints what a profile must show, as VBENCH alloc lines:
        // method, type, count.
        public static void Run(int n)
        {
            Nodes(10 * n);
            Arrays(3 * n);
            Strings(2 * n);
            Outer(n);
            // A full collection first takes every kept object to generation
            // 2, leaving the younger ones nothing to promote past their
            // budget (else the runtime may collect an older generation than
            // asked: a gen0 GC.Collect became a gen1 collection).
            GC.Collect(2, GCCollectionMode.Forced, true);
            for (int i = 0; i < 3; i++) { GC.Collect(0, GCCollectionMode.Forced, true); }
            for (int i = 0; i < 2; i++) { GC.Collect(1, GCCollectionMode.Forced, true); }
            Console.WriteLine("VBENCH alloc VbTest.Allocs.Nodes VbTest.AllocNode " + 10 * n);
            Console.WriteLine("VBENCH alloc VbTest.Allocs.Arrays System.Int32[] " + 3 * n);
            Console.WriteLine("VBENCH alloc VbTest.Allocs.Strings System.String " + 2 * n);
            Console.WriteLine("VBENCH alloc VbTest.Allocs.Outer VbTest.AllocPair " + n);
            Console.WriteLine("VBENCH alloc VbTest.Allocs.Inner VbTest.AllocPair " + 5 * n);
            // The runtime's own count of collections of each generation or
            // older, which the profile's list must match exactly (the runtime
            // may still collect an older generation than a GC.Collect asked).
            int c0 = GC.CollectionCount(0), c1 = GC.CollectionCount(1), c2 = GC.CollectionCount(2);
            Console.WriteLine("VBENCH gc induced 6");
            Console.WriteLine("VBENCH gc count " + c0 + " " + c1 + " " + c2);
        }

        // Big allocates n byte arrays of 1000 elements (a large total for
        // allocation-sampling to estimate), keeping the latest 64 Ki.
        [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
        public static void Big(int n)
        {
            for (int i = 0; i < n; i++) Keep(new byte[1000]);
        }
    }

    public sealed class LedgerLine
    {
        public long N;
    }

    // Ledger.MakeLines is called once from Main, with default tiering: its
    // loop starts in Tier0 code and moves to an on-stack-replacement (OSR)
    // method, whose frame sits on the Tier0 frame. Every line it allocates
    // is on the path Main > MakeLines, before and after the move.
    public static class Ledger
    {
        static object[] keep = new object[1 << 12];

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void MakeLines(int n)
        {
            for (int i = 0; i < n; i++) keep[i & (keep.Length - 1)] = new LedgerLine { N = i };
            Console.WriteLine("VBENCH alloc VbTest.Ledger.MakeLines VbTest.LedgerLine " + n);
        }
    }
}
