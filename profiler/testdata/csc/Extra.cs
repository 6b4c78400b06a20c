// Compiled (as a library) by TestCompilerUnderProfiler in profiler/: the
// C# compiler (csc.dll) is the program being profiled, and this file gives it
// more of the language to chew on (generics with constraints, LINQ, async
// state machines, records, pattern matching, iterators, local functions,
// lambdas, tuples, string interpolation) plus one warning, so that its
// diagnostics output is not empty.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace VbCsc
{
    public interface IShape { double Area { get; } }
    public record Circle(double R) : IShape { public double Area => Math.PI * R * R; }
    public record Rect(double W, double H) : IShape { public double Area => W * H; }

    public static class Geometry
    {
        public static string Describe(IShape s) => s switch
        {
            Circle { R: > 10 } c => $"big circle {c.R}",
            Circle c => $"circle {c.R:F1}",
            Rect { W: var w, H: var h } when w == h => $"square {w}",
            Rect r => $"rect {r.W}x{r.H}",
            _ => "unknown",
        };

        public static IEnumerable<T> Largest<T>(IEnumerable<T> xs, int n) where T : IShape =>
            xs.OrderByDescending(x => x.Area).ThenBy(x => x.GetHashCode()).Take(n);

        public static IEnumerable<int> Primes(int max)
        {
            for (int i = 2; i <= max; i++)
            {
                if (IsPrime(i)) yield return i;
            }
            static bool IsPrime(int k) => Enumerable.Range(2, Math.Max(0, (int)Math.Sqrt(k) - 1)).All(d => k % d != 0);
        }
    }

    public sealed class Cache<TKey, TValue> where TKey : notnull, IComparable<TKey>
    {
        private readonly Dictionary<TKey, TValue> items = new();
        public TValue GetOrAdd(TKey key, Func<TKey, TValue> make)
        {
            if (!items.TryGetValue(key, out var v))
            {
                v = make(key);
                items[key] = v;
            }
            return v;
        }
        public (TKey Min, int Count) Summary() => (items.Keys.Min()!, items.Count);
    }

    public static class Pipeline
    {
        public static async Task<int> SumAsync(IEnumerable<int> xs)
        {
            int total = 0;
            foreach (var x in xs)
            {
                await Task.Yield();
                total += x;
            }
            return total;
        }

        public static async Task<string> RunAsync()
        {
            var shapes = new List<IShape> { new Circle(1), new Rect(2, 3), new Circle(12), new Rect(4, 4) };
            var names = Geometry.Largest(shapes, 3).Select(Geometry.Describe).ToArray();
            var cache = new Cache<string, int>();
            foreach (var n in names) cache.GetOrAdd(n, s => s.Length);
            var sum = await SumAsync(Geometry.Primes(100));
            var grouped = shapes.GroupBy(s => s.GetType().Name).ToDictionary(g => g.Key, g => g.Sum(s => s.Area));
            try
            {
                checked { int big = int.MaxValue; big += sum; }
            }
            catch (OverflowException e) when (e.Message.Length > 0)
            {
                sum = -sum;
            }
            return $"{string.Join(",", names)};{sum};{cache.Summary()};{grouped.Count}";
        }

        public static void Unused()
        {
            int neverUsed; // CS0168: declared but never used
        }
    }
}
