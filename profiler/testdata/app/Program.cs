// Test program for the vbench profiler: each scenario (first argument) does a
// known amount of work and prints the call counts a profiler must report,
// as "VBENCH expect <Function>=<calls>" lines, plus its own result.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace VbTest
{
    public static class Program
    {
        public static int Main(string[] args)
        {
            string scenario = args.Length > 0 ? args[0] : "all";
            int n = args.Length > 1 ? int.Parse(args[1]) : 0;
            switch (scenario)
            {
                case "recursion": Recursion.Run(n > 0 ? n : 20); break;
                case "loop": Loop.Run(n > 0 ? n : 100000); break;
                case "throw": Throws.Run(n > 0 ? n : 10); break;
                case "generic": Generics.Run(n > 0 ? n : 1000); break;
                case "iface": Shapes.Run(n > 0 ? n : 1000); break;
                case "threads": Workers.Run(n > 0 ? n : 10000); break;
                case "nested": Outer.Inner.Run(n > 0 ? n : 10); break;
                case "tail": Tail.Run(n > 0 ? n : 1000); break;
                case "tailil": TailIL.Run(n > 0 ? n : 1000); break;
                case "all":
                    Recursion.Run(20); Loop.Run(100000); Throws.Run(10); Generics.Run(1000);
                    Shapes.Run(1000); Workers.Run(10000); Outer.Inner.Run(10); Faults.Run(20);
                    break;
                case "cpu": Hot.Run(n > 0 ? n : 1500); break;
                case "faults": Faults.Run(n > 0 ? n : 100); break;
                case "exit": Exiter.Run(n); return 99; // not reached: Environment.Exit
                case "nativeexit": Exiter.RunNative(n); return 99; // not reached: libc exit()
                case "exitcode": Console.WriteLine("exiting with " + n); return n;
                case "sigflags": SigFlags.Print(); break;
                case "stress": return Stress.Run(n > 0 ? n : 8, args.Length > 2 ? int.Parse(args[2]) : 3000);
                case "fib": FibBench.Run(n > 0 ? n : 100); break;
                case "mandel": Mandel.Run(n > 0 ? n : 1600); break;
                case "leaf": Leafy.Run(n > 0 ? n : 10, args.Length > 2 ? int.Parse(args[2]) : 1); break;
                case "deep": Deep.Run(n > 0 ? n : 100000, args.Length > 2 ? int.Parse(args[2]) : 0); break;
                case "spawn": return Spawner.Run(n, args[2..]);
                case "spawnbench": return Spawner.Run(n, args[2..], bench: true);
                case "hang": Spawner.Hang(); break;
                default: Console.Error.WriteLine("unknown scenario " + scenario); return 2;
            }
            return 0;
        }

        public static void Expect(string fn, long calls) => Console.WriteLine("VBENCH expect " + fn + "=" + calls);
    }

    public static class Recursion
    {
        public static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

        public static void Run(int n)
        {
            Console.WriteLine("fib(" + n + ")=" + Fib(n));
            Program.Expect("VbTest.Recursion.Fib", 2L * Fib0(n + 1) - 1);
        }

        // Iterative Fibonacci, not profiled in any interesting way.
        static long Fib0(int n) { long a = 0, b = 1; for (int i = 0; i < n; i++) { long t = a + b; a = b; b = t; } return a; }
    }

    public static class Loop
    {
        static long total;
        public static void Step(int i) { total += i; }

        public static void Run(int n)
        {
            for (int i = 0; i < n; i++) Step(i);
            Console.WriteLine("loop total=" + total);
            Program.Expect("VbTest.Loop.Step", n);
        }
    }

    public static class Throws
    {
        static int caught, after;

        public static void Thrower(int i) { if (i >= 0) throw new InvalidOperationException("boom " + i); }
        public static void Middle(int i) { Thrower(i); Console.WriteLine("not reached"); }
        public static void After() { after++; }

        public static void Catcher(int i)
        {
            try { Middle(i); }
            catch (InvalidOperationException) { caught++; }
            After();
        }

        public static void Run(int n)
        {
            for (int i = 0; i < n; i++) Catcher(i);
            Console.WriteLine("caught=" + caught + " after=" + after);
            Program.Expect("VbTest.Throws.Catcher", n);
            Program.Expect("VbTest.Throws.Middle", n);
            Program.Expect("VbTest.Throws.Thrower", n);
            Program.Expect("VbTest.Throws.After", n);
        }
    }

    public class Box<T>
    {
        readonly T value;
        public Box(T v) { value = v; }
        public T Get() => value;
    }

    public static class Util
    {
        public static T Identity<T>(T x) => x;
    }

    public static class Generics
    {
        public static void Run(int n)
        {
            long sum = 0; int len = 0;
            var bi = new Box<int>(3); var bs = new Box<string>("abc");
            for (int i = 0; i < n; i++)
            {
                sum += Util.Identity<int>(i) + bi.Get();
                len += Util.Identity<string>("x").Length + bs.Get().Length;
            }
            Console.WriteLine("generic sum=" + sum + " len=" + len);
            Program.Expect("VbTest.Util.Identity<T>", 2L * n);
            Program.Expect("VbTest.Box<T>.Get", 2L * n);
            Program.Expect("VbTest.Box<T>..ctor", 2);
        }
    }

    public interface IShape { double Area(); }
    public sealed class Circle : IShape { public double R = 1; public double Area() => Math.PI * R * R; }
    public sealed class Square : IShape { public double S = 2; public double Area() => S * S; }

    public static class Shapes
    {
        public static double Total(IShape[] shapes)
        {
            double t = 0;
            foreach (var s in shapes) t += s.Area();
            return t;
        }

        public static void Run(int n)
        {
            var shapes = new IShape[n];
            for (int i = 0; i < n; i++) shapes[i] = i % 3 == 0 ? new Square() : new Circle();
            int squares = (n + 2) / 3;
            Console.WriteLine("area=" + Total(shapes).ToString("F3"));
            Program.Expect("VbTest.Square.Area", squares);
            Program.Expect("VbTest.Circle.Area", n - squares);
            Program.Expect("VbTest.Shapes.Total", 1);
        }
    }

    public static class Workers
    {
        public static long Unit(long x) => x * 3 + 1;

        public static void Work(int n, long[] results, int k)
        {
            long acc = 0;
            for (int i = 0; i < n; i++) acc += Unit(i);
            results[k] = acc;
        }

        public static void Run(int n)
        {
            var results = new long[4];
            var threads = new Thread[4];
            for (int k = 0; k < 4; k++)
            {
                int kk = k;
                threads[k] = new Thread(() => Work(n, results, kk));
                threads[k].Start();
            }
            foreach (var t in threads) t.Join();
            Console.WriteLine("workers=" + string.Join(",", results));
            Program.Expect("VbTest.Workers.Unit", 4L * n);
            Program.Expect("VbTest.Workers.Work", 4);
        }
    }

    public static class Outer
    {
        public static class Inner
        {
            public static int M(int x) => x + 1;
            public static void Run(int n)
            {
                int s = 0;
                for (int i = 0; i < n; i++) s = M(s);
                Console.WriteLine("nested=" + s);
                Program.Expect("VbTest.Outer.Inner.M", n);
            }
        }
    }

    public static class Tail
    {
        public static long Down(long n, long acc) => n == 0 ? acc : Down(n - 1, acc + n);
        public static void Run(int n)
        {
            long s = 0;
            for (int i = 0; i < 10; i++) s += Down(n, 0);
            Console.WriteLine("tail=" + s);
            Program.Expect("VbTest.Tail.Down", 10L * (n + 1));
        }
    }

    // Hardware faults CoreCLR turns into exceptions (SIGSEGV -> NullReference,
    // SIGFPE -> DivideByZero): they reach CoreCLR through the Go runtime's
    // forwarding handlers when the profiler is loaded.
    public static class Faults
    {
        public sealed class Box { public int V; }
        static Box nobody;
        static int zero;

        public static int Deref(Box b) => b.V;
        public static int Divide(int a, int b) => a / b;

        public static void Run(int n)
        {
            int nulls = 0, divs = 0;
            for (int i = 0; i < n; i++)
            {
                try { Deref(nobody); } catch (NullReferenceException) { nulls++; }
                try { Divide(i, zero); } catch (DivideByZeroException) { divs++; }
            }
            Console.WriteLine("faults nulls=" + nulls + " divs=" + divs);
            Program.Expect("VbTest.Faults.Deref", n);
            Program.Expect("VbTest.Faults.Divide", n);
        }
    }

    // Explicit tail calls ("tail." prefix), which C# cannot emit: built with
    // Reflection.Emit in a dynamic assembly, whose methods the profiler hooks
    // like any other. Even(n) and Odd(n) tail-call each other down to 0
    // (mutual recursion, so the JIT cannot turn the calls into a loop).
    public static class TailIL
    {
        public static void Run(int n)
        {
            var ab = System.Reflection.Emit.AssemblyBuilder.DefineDynamicAssembly(
                new System.Reflection.AssemblyName("VbTailDyn"), System.Reflection.Emit.AssemblyBuilderAccess.Run);
            var tb = ab.DefineDynamicModule("VbTailDyn").DefineType("VbTailDyn.Tail",
                System.Reflection.TypeAttributes.Public | System.Reflection.TypeAttributes.Abstract | System.Reflection.TypeAttributes.Sealed);
            var attrs = System.Reflection.MethodAttributes.Public | System.Reflection.MethodAttributes.Static;
            var even = tb.DefineMethod("Even", attrs, typeof(long), new[] { typeof(long), typeof(long) });
            var odd = tb.DefineMethod("Odd", attrs, typeof(long), new[] { typeof(long), typeof(long) });
            Emit(even, odd);
            Emit(odd, even);
            var f = tb.CreateType().GetMethod("Even").CreateDelegate<Func<long, long, long>>();
            long s = 0;
            for (int i = 0; i < 10; i++) s += f(n, 0);
            Console.WriteLine("tailil=" + s);
            Program.Expect("VbTailDyn.Tail.Even", 10L * (n / 2 + 1));
            Program.Expect("VbTailDyn.Tail.Odd", 10L * ((n + 1) / 2));
        }

        // m(n, acc) => n == 0 ? acc : tail. other(n - 1, acc + n)
        static void Emit(System.Reflection.Emit.MethodBuilder m, System.Reflection.Emit.MethodBuilder other)
        {
            var il = m.GetILGenerator();
            var done = il.DefineLabel();
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
            il.Emit(System.Reflection.Emit.OpCodes.Brfalse, done);
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
            il.Emit(System.Reflection.Emit.OpCodes.Ldc_I8, 1L);
            il.Emit(System.Reflection.Emit.OpCodes.Sub);
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_1);
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
            il.Emit(System.Reflection.Emit.OpCodes.Add);
            il.Emit(System.Reflection.Emit.OpCodes.Tailcall);
            il.Emit(System.Reflection.Emit.OpCodes.Call, other);
            il.Emit(System.Reflection.Emit.OpCodes.Ret);
            il.MarkLabel(done);
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_1);
            il.Emit(System.Reflection.Emit.OpCodes.Ret);
        }
    }

    public static class Hot
    {
        public static double Spin(int ms)
        {
            var sw = Stopwatch.StartNew();
            double x = 0;
            while (sw.ElapsedMilliseconds < ms)
                for (int i = 1; i < 10000; i++) x += Math.Sqrt(i) * 1e-9;
            return x;
        }

        public static int Little() { int s = 0; for (int i = 0; i < 1000; i++) s += i; return s; }

        public static void Run(int ms)
        {
            double x = Spin(ms);
            int l = Little();
            Console.WriteLine("hot done " + (x > 0) + " " + l);
        }
    }

    public static partial class Exiter
    {
        public static void Work(int n) { for (int i = 0; i < n; i++) Loop.Step(i); }
        public static void Run(int n)
        {
            Work(n > 0 ? n : 100);
            Console.WriteLine("exiting via Environment.Exit(3)");
            Console.Out.Flush();
            Environment.Exit(3);
        }
    }

    public static partial class Exiter
    {
        [DllImport("libc", EntryPoint = "exit")]
        static extern void LibcExit(int code);

        // exit(3) straight from managed code: the process ends without the
        // runtime's orderly shutdown, so the profiler's Shutdown never comes.
        public static void RunNative(int n)
        {
            Work(n > 0 ? n : 100);
            Console.WriteLine("exiting via libc exit(4)");
            Console.Out.Flush();
            LibcExit(4);
        }
    }

    public static unsafe class SigFlags
    {
        [DllImport("libc", SetLastError = true)]
        static extern int sigaction(int sig, IntPtr act, IntPtr oldact);
        [DllImport("libc")]
        static extern int __libc_current_sigrtmin();

        // struct sigaction on x86-64 glibc: handler (8), sa_mask (128), sa_flags (int at 136).
        public static void Print()
        {
            int sig = __libc_current_sigrtmin();
            byte* buf = stackalloc byte[256];
            if (sigaction(sig, IntPtr.Zero, (IntPtr)buf) != 0) { Console.WriteLine("sigaction failed"); return; }
            int flags = *(int*)(buf + 136);
            Console.WriteLine("SIGRTMIN=" + sig + " flags=0x" + flags.ToString("x") + " onstack=" + ((flags & 0x08000000) != 0));
        }
    }

    // Deep recursion: Recurse(n) calls itself down to Recurse(1), n frames
    // deep, on a thread with a 512 MiB stack; at the bottom it spins holdMs
    // so that a sampler catches whole stacks. What a profiler must survive:
    // trees far deeper than any JSON reader nests.
    public static class Deep
    {
        static int holdMs;
        static double sink;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Recurse(int n) => n <= 1 ? Bottom() : Recurse(n - 1) + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Bottom()
        {
            var sw = Stopwatch.StartNew();
            double x = 0;
            do { for (int i = 1; i < 10000; i++) x += Math.Sqrt(i) * 1e-9; } while (sw.ElapsedMilliseconds < holdMs);
            sink += x;
            return 1;
        }

        public static void Run(int n, int hold)
        {
            holdMs = hold;
            int depth = 0;
            var t = new Thread(() => depth = Recurse(n), 512 * 1024 * 1024);
            t.Start();
            t.Join();
            Console.WriteLine("deep=" + depth);
            Program.Expect("VbTest.Deep.Recurse", n);
            Program.Expect("VbTest.Deep.Bottom", 1);
        }
    }

    public static class FibBench
    {
        public static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);
        public static void Run(int reps)
        {
            // Warm up, then give tiered compilation time to install tier-1
            // code: the timed part measures steady state.
            for (int i = 0; i < 50; i++) Fib(20);
            Thread.Sleep(300);
            var sw = Stopwatch.StartNew();
            long s = 0;
            for (int i = 0; i < reps; i++) s += Fib(30);
            sw.Stop();
            Console.WriteLine("fib sum=" + s + " ms=" + sw.Elapsed.TotalMilliseconds.ToString("F1"));
        }
    }

    // Mandelbrot: a few calls per pixel, most time in tight loops, as in the
    // thesis's Mandelbrot benchmark. Prints its own time and a checksum.
    // Two kernels of the same work, one a method, one inline: Mix has no GC
    // safe point (no loop, no call), so CoreCLR never suspends a thread inside
    // it; it hijacks Mix's return and the thread stops in Spin. A thread
    // interrupted in Spin's own half is hijacked on Spin's return, which does
    // not come, and is stopped later wherever a second interruption lands.
    // Neither half may take the other's samples. Nothing in the loop lets a
    // thread reach a safe point by itself (no allocation, no P/Invoke).
    public static class Leafy
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Mix(ulong x)
        {
            x ^= x >> 33; x *= 0xff51afd7ed558ccdUL; x ^= x >> 29; x *= 0xc4ceb9fe1a85ec53UL;
            x ^= x >> 32; x *= 0xff51afd7ed558ccdUL; x ^= x >> 31; x *= 0xc4ceb9fe1a85ec53UL;
            x ^= x >> 30; x *= 0xff51afd7ed558ccdUL; x ^= x >> 27; x *= 0xc4ceb9fe1a85ec53UL;
            x ^= x >> 33; x *= 0xff51afd7ed558ccdUL; x ^= x >> 29; x *= 0xc4ceb9fe1a85ec53UL;
            return x ^ (x >> 33);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ulong Spin(long calls)
        {
            ulong x = 1;
            for (long i = 0; i < calls; i++)
            {
                x = Mix(x + (ulong)i);
                x ^= x >> 33; x *= 0xff51afd7ed558ccdUL; x ^= x >> 29; x *= 0xc4ceb9fe1a85ec53UL;
                x ^= x >> 32; x *= 0xff51afd7ed558ccdUL; x ^= x >> 31; x *= 0xc4ceb9fe1a85ec53UL;
                x ^= x >> 30; x *= 0xff51afd7ed558ccdUL; x ^= x >> 27; x *= 0xc4ceb9fe1a85ec53UL;
                x ^= x >> 33; x *= 0xff51afd7ed558ccdUL; x ^= x >> 29; x *= 0xc4ceb9fe1a85ec53UL;
            }
            return x;
        }

        // millions: Mix calls per thread, in millions.
        public static void Run(int millions, int threads)
        {
            var ts = new Thread[threads];
            var r = new ulong[threads];
            for (int i = 0; i < threads; i++)
            {
                int k = i;
                ts[i] = new Thread(() => r[k] = Spin(millions * 1000000L));
                ts[i].Start();
            }
            foreach (var t in ts) t.Join();
            Console.WriteLine("leaf done " + threads + " " + (r[0] != 0));
        }
    }

    public static class Mandel
    {
        public struct View { public double X0, Y0, Scale; public int Max; }

        public static int Escape(double cx, double cy, int max)
        {
            double x = 0, y = 0; int i = 0;
            while (i < max && x * x + y * y <= 4) { double t = x * x - y * y + cx; y = 2 * x * y + cy; x = t; i++; }
            return i;
        }

        public static byte Shade(int it, int max) => it >= max ? (byte)0 : (byte)(255 - it * 255 / max);

        public static long RenderRow(int row, int size, View v, byte[] line)
        {
            long sum = 0;
            double cy = v.Y0 + row * v.Scale;
            for (int col = 0; col < size; col++)
            {
                line[col] = Shade(Escape(v.X0 + col * v.Scale, cy, v.Max), v.Max);
                sum += line[col];
            }
            return sum;
        }

        public static View MakeView(int size) => new View { X0 = -2.2, Y0 = -1.5, Scale = 3.0 / size, Max = 200 };

        public static void Run(int size)
        {
            var warm = new byte[64];
            for (int i = 0; i < 200; i++) RenderRow(i % 64, 64, MakeView(64), warm);
            Thread.Sleep(300);
            var sw = Stopwatch.StartNew();
            var v = MakeView(size);
            var line = new byte[size];
            long sum = 0;
            for (int row = 0; row < size; row++) sum += RenderRow(row, size, v, line);
            sw.Stop();
            Console.WriteLine("mandel sum=" + sum + " ms=" + sw.Elapsed.TotalMilliseconds.ToString("F1"));
        }
    }

    // Stress: threads allocating garbage, throwing and catching, with induced
    // GCs, so the runtime suspends threads constantly. Prints a checksum that
    // does not depend on scheduling.
    public static class Stress
    {
        sealed class Node { public Node Next; public int[] Data; }

        static long Churn(int seed, int rounds)
        {
            long sum = 0;
            var rnd = new Random(seed);
            for (int r = 0; r < rounds; r++)
            {
                Node head = null;
                for (int i = 0; i < 200; i++) head = new Node { Next = head, Data = new int[rnd.Next(1, 64)] };
                for (var p = head; p != null; p = p.Next) sum += p.Data.Length;
                var list = new List<string>();
                for (int i = 0; i < 50; i++) list.Add(i.ToString());
                sum += list.Count;
                try { Fail(r); } catch (ArgumentException) { sum += 1; }
                try { sum += Faults.Deref(null); } catch (NullReferenceException) { sum += 2; }
                if (r % 50 == 0) GC.Collect(r % 3 == 0 ? 2 : 0);
            }
            return sum;
        }

        static void Fail(int r) { if (r >= 0) throw new ArgumentException("r=" + r); }

        public static int Run(int threads, int rounds)
        {
            var sums = new long[threads];
            var ts = new Thread[threads];
            for (int k = 0; k < threads; k++)
            {
                int kk = k;
                ts[k] = new Thread(() => sums[kk] = Churn(kk, rounds));
                ts[k].Start();
            }
            foreach (var t in ts) t.Join();
            long total = 0;
            foreach (var s in sums) total += s;
            Console.WriteLine("stress checksum=" + total);
            return 0;
        }
    }
}
