// binarytrees: the benchmarks game's allocation benchmark, single-threaded.
// Builds and walks many short-lived perfect binary trees plus one long-lived
// tree: allocation, GC (many gen0 collections, some gen1/gen2) and two deeply
// recursive call patterns. Stresses a profiler's allocation-rate tolerance
// and GC-time bookkeeping as well as per-call cost.
//
// With minDepth = 4, maxDepth = max(6, --depth):
//   one stretch tree of depth maxDepth+1, built and checked;
//   one long-lived tree of depth maxDepth, built first and checked last;
//   for d = 4, 6, ..., maxDepth: k(d) = round(2^(maxDepth - d + 4) * --scale)
//     trees of depth d, each built and checked.
// A tree of depth d has nodes(d) = 2^(d+1) - 1 nodes, and each node costs one
// call of each counted method, so (no in-process warm-up):
//   Vbench.BinaryTrees.Program.BottomUpTree = N
//   Vbench.BinaryTrees.TreeNode..ctor       = N
//   Vbench.BinaryTrees.TreeNode.Check       = N
//   N = nodes(maxDepth+1) + nodes(maxDepth) + sum_d k(d) * nodes(d)
// The checksum is the sum of every Check() result, which is N again.
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.BinaryTrees;

public sealed class TreeNode
{
    private readonly TreeNode? _left;
    private readonly TreeNode? _right;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public TreeNode(TreeNode? left, TreeNode? right)
    {
        _left = left;
        _right = right;
    }

    /// <summary>The number of nodes in this tree.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Check() => _left is null ? 1 : 1 + _left.Check() + _right!.Check();
}

public static class Program
{
    private const int MinDepth = 4;

    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "binarytrees",
            new Option("depth", "17", "maximum tree depth (the game's n; at least 6)"));
        int maxDepth = Math.Max(MinDepth + 2, args.Int("depth", min: 0));
        if (maxDepth > 24)
            args.Die("--depth must be at most 24");

        // How many trees of each depth, decided before the clock starts.
        var counts = new Dictionary<int, long>();
        for (int d = MinDepth; d <= maxDepth; d += 2)
            counts[d] = args.Scaled(1L << (maxDepth - d + MinDepth));

        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        long start = Clock.Start();
        long checks = Run(maxDepth, counts);
        long elapsed = Clock.ElapsedNs(start);

        long n = Nodes(maxDepth + 1) + Nodes(maxDepth);
        foreach (var (d, k) in counts)
            n += k * Nodes(d);
        if (checks != n)
            throw new InvalidOperationException($"checked {checks} nodes, want {n}");

        new VbenchLine(elapsed, checks.ToString())
            .Calls("Vbench.BinaryTrees.Program.BottomUpTree", n)
            .Calls("Vbench.BinaryTrees.TreeNode..ctor", n)
            .Calls("Vbench.BinaryTrees.TreeNode.Check", n)
            .Calls("Vbench.BinaryTrees.Program.Run", 1)
            .Add("depth", maxDepth)
            .Add("gc.gen0", GC.CollectionCount(0) - gen0)
            .Add("gc.gen1", GC.CollectionCount(1) - gen1)
            .Add("gc.gen2", GC.CollectionCount(2) - gen2)
            .Print();
        return 0;
    }

    private static long Nodes(int depth) => (1L << (depth + 1)) - 1;

    /// <summary>The measured kernel: returns the sum of all Check() results.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long Run(int maxDepth, Dictionary<int, long> counts)
    {
        long total = BottomUpTree(maxDepth + 1).Check();
        TreeNode longLived = BottomUpTree(maxDepth);
        for (int d = MinDepth; d <= maxDepth; d += 2)
        {
            long k = counts[d];
            for (long i = 0; i < k; i++)
                total += BottomUpTree(d).Check();
        }
        return total + longLived.Check();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static TreeNode BottomUpTree(int depth) =>
        depth > 0 ? new TreeNode(BottomUpTree(depth - 1), BottomUpTree(depth - 1)) : new TreeNode(null, null);
}
