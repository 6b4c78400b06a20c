// Test program for the vbench profiler: each scenario (first argument) does a
// known amount of work and prints the call counts a profiler must report,
// as "VBENCH expect <Function>=<calls>" lines, plus its own result.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

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
                case "getter": Getter.Run(n > 0 ? n : 1000); break;
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
                case "alloc": Allocs.Run(n > 0 ? n : 1000); break;
                case "allocbig": Allocs.Big(n > 0 ? n : 200000); break;
                case "osralloc": Ledger.MakeLines(n > 0 ? n : 200000); break;
                case "wait": Waiter.Run(n > 0 ? n : 600); break;
                case "faults": Faults.Run(n > 0 ? n : 100); break;
                case "exit": Exiter.Run(n); return 99; // not reached: Environment.Exit
                case "nativeexit": Exiter.RunNative(n); return 99; // not reached: libc exit()
                case "exitcode": Console.WriteLine("exiting with " + n); return n;
                case "sigflags": SigFlags.Print(); break;
                case "sigprof": SigProf.Run(args.Length > 2 ? args[2] : "ign", n > 0 ? n : 300); break;
                case "stress": return Stress.Run(n > 0 ? n : 8, args.Length > 2 ? int.Parse(args[2]) : 3000);
                case "fib": FibBench.Run(n > 0 ? n : 100); break;
                case "mandel": Mandel.Run(n > 0 ? n : 1600); break;
                case "leaf": Leafy.Run(n > 0 ? n : 10, args.Length > 2 ? int.Parse(args[2]) : 1); break;
                case "deep": Deep.Run(n > 0 ? n : 100000, args.Length > 2 ? int.Parse(args[2]) : 0); break;
                case "hard": Hard.Run(n > 0 ? n : 200); break;
                case "jitcount": JitCount.Run(); break;
                case "tailskip": TailIL.RunSkipped(n > 0 ? n : 10); break;
                case "spawn": return Spawner.Run(n, args[2..]);
                case "spawnbench": return Spawner.Run(n, args[2..], bench: true);
                case "hang": Spawner.Hang(); break;
                case "stop-sleep": Stopper.Sleep(n); break;
                case "stop-readline": Stopper.ReadLine(n); break;
                case "stop-busy": Stopper.Busy(n); break;
                case "stop-cancel": return Stopper.Cancel(n);
                case "throw-deep": return Crasher.Throw(n > 0 ? n : 40);
                case "failfast-deep": return Crasher.FailFast(n > 0 ? n : 40);
                case "segv-deep": return Crasher.Segv(n > 0 ? n : 40);
                // Killed by SIGKILL: no profile can be written; the harness must say so.
                case "crash-kill": System.Diagnostics.Process.GetCurrentProcess().Kill(); return 99;
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

    // A hot tiny getter called from a heavier method: Heavy's arithmetic
    // takes most of the time, Box.Value (not inlined, so every engine sees
    // it) a few percent. Run: n rounds of 100,000 Heavy iterations.
    public static class Getter
    {
        public sealed class Box
        {
            int v = 3;
            public int Value { [MethodImpl(MethodImplOptions.NoInlining)] get => v; }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Heavy(Box b, int n)
        {
            long s = 1;
            for (int i = 0; i < n; i++)
            {
                for (int k = 0; k < 8; k++) s = s * 31 + (k ^ (s >> 7));
                s += b.Value;
            }
            return s;
        }

        public static void Run(int n)
        {
            var b = new Box();
            long s = 0;
            for (int r = 0; r < n; r++) s ^= Heavy(b, 100_000);
            Console.WriteLine("getter " + s);
            Program.Expect("VbTest.Getter.Box.get_Value", 100_000L * n);
            Program.Expect("VbTest.Getter.Heavy", n);
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
            // More shapes of explicit tail call: to a generic method
            // instantiation, with a struct argument, callvirt on an object,
            // calli through a function pointer.
            var pick = tb.DefineMethod("Pick", attrs);
            var tp = pick.DefineGenericParameters("T");
            pick.SetReturnType(tp[0]);
            pick.SetParameters(tp[0]);
            var il = pick.GetILGenerator();
            il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
            il.Emit(System.Reflection.Emit.OpCodes.Ret);
            var callPick = Tailer(tb, "CallPick", typeof(long), new[] { typeof(long) }, null, g => g.Emit(System.Reflection.Emit.OpCodes.Call, pick.MakeGenericMethod(typeof(long))));
            var pair = typeof(ValueTuple<long, long>);
            var first = tb.DefineMethod("First", attrs, typeof(long), new[] { pair });
            il = first.GetILGenerator();
            il.Emit(System.Reflection.Emit.OpCodes.Ldarga_S, (byte)0);
            il.Emit(System.Reflection.Emit.OpCodes.Ldfld, pair.GetField("Item1"));
            il.Emit(System.Reflection.Emit.OpCodes.Ret);
            var callFirst = Tailer(tb, "CallFirst", typeof(long), new[] { typeof(long) },
                g => g.Emit(System.Reflection.Emit.OpCodes.Newobj, pair.GetConstructor(new[] { typeof(long), typeof(long) })),
                g => g.Emit(System.Reflection.Emit.OpCodes.Call, first), dupArg: true);
            var callText = Tailer(tb, "CallText", typeof(string), new[] { typeof(object) }, null, g => g.Emit(System.Reflection.Emit.OpCodes.Callvirt, typeof(object).GetMethod("ToString")));
            var callPtr = Tailer(tb, "CallPtr", typeof(long), new[] { typeof(long), typeof(long) },
                g => g.Emit(System.Reflection.Emit.OpCodes.Ldftn, even),
                g => g.EmitCalli(System.Reflection.Emit.OpCodes.Calli, System.Reflection.CallingConventions.Standard, typeof(long), new[] { typeof(long), typeof(long) }, null));
            var t = tb.CreateType();
            var f = t.GetMethod("Even").CreateDelegate<Func<long, long, long>>();
            var fPick = t.GetMethod("CallPick").CreateDelegate<Func<long, long>>();
            var fFirst = t.GetMethod("CallFirst").CreateDelegate<Func<long, long>>();
            var fText = t.GetMethod("CallText").CreateDelegate<Func<object, string>>();
            var fPtr = t.GetMethod("CallPtr").CreateDelegate<Func<long, long, long>>();
            long s = 0;
            for (int i = 0; i < 10; i++) s += f(n, 0) + fPick(i) + fFirst(i) + fText(i).Length + fPtr(4, 0);
            Console.WriteLine("tailil=" + s);
            Program.Expect("VbTailDyn.Tail.Even", 10L * (n / 2 + 1) + 10 * 3);
            Program.Expect("VbTailDyn.Tail.Odd", 10L * ((n + 1) / 2) + 10 * 2);
            Program.Expect("VbTailDyn.Tail.CallPick", 10);
            Program.Expect("VbTailDyn.Tail.Pick<T>", 10);
            Program.Expect("VbTailDyn.Tail.CallFirst", 10);
            Program.Expect("VbTailDyn.Tail.First", 10);
            Program.Expect("VbTailDyn.Tail.CallText", 10);
            Program.Expect("VbTailDyn.Tail.CallPtr", 10);
        }

        // A method the instrumentation engine leaves alone: "tail. call
        // instance object::ToString()" (call, not callvirt, to an instance
        // method of another module's type: whether its this is an object or
        // a byref to a struct is not known without loading that type).
        public static void RunSkipped(int n)
        {
            var ab = System.Reflection.Emit.AssemblyBuilder.DefineDynamicAssembly(
                new System.Reflection.AssemblyName("VbSkipDyn"), System.Reflection.Emit.AssemblyBuilderAccess.Run);
            var tb = ab.DefineDynamicModule("VbSkipDyn").DefineType("VbSkipDyn.Skip",
                System.Reflection.TypeAttributes.Public | System.Reflection.TypeAttributes.Abstract | System.Reflection.TypeAttributes.Sealed);
            Tailer(tb, "Text", typeof(string), new[] { typeof(object) }, null, g => g.Emit(System.Reflection.Emit.OpCodes.Call, typeof(object).GetMethod("ToString")));
            var text = tb.CreateType().GetMethod("Text").CreateDelegate<Func<object, string>>();
            long s = 0;
            for (int i = 0; i < n; i++) s += text(i * 7).Length;
            Console.WriteLine("tailskip=" + s);
            Program.Expect("VbSkipDyn.Skip.Text", n);
        }

        // m(args) => tail. <call>: the arguments (the first twice with
        // dupArg), what pre emits, tail., the call emitted by call, ret.
        static System.Reflection.Emit.MethodBuilder Tailer(System.Reflection.Emit.TypeBuilder tb, string name, Type ret, Type[] ps,
            Action<System.Reflection.Emit.ILGenerator> pre, Action<System.Reflection.Emit.ILGenerator> call, bool dupArg = false)
        {
            var m = tb.DefineMethod(name, System.Reflection.MethodAttributes.Public | System.Reflection.MethodAttributes.Static, ret, ps);
            var il = m.GetILGenerator();
            for (short i = 0; i < ps.Length; i++) il.Emit(System.Reflection.Emit.OpCodes.Ldarg, i);
            if (dupArg) il.Emit(System.Reflection.Emit.OpCodes.Ldarg_0);
            pre?.Invoke(il);
            il.Emit(System.Reflection.Emit.OpCodes.Tailcall);
            call(il);
            il.Emit(System.Reflection.Emit.OpCodes.Ret);
            return m;
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

    // A thread that waits while another works: Waiter.Join blocks in
    // Thread.Join for all of Hot.Spin's time on a worker, then
    // Waiter.Nap sleeps for half of it. Neither uses CPU. (Each counts
    // after its call: a call in tail position would be a tail call, and
    // the method's frame gone. CoreLib's Join() keeps no frame pointer: a
    // frame-pointer walk through it skips Waiter.Join unless the sampler
    // finds the return address its prolog says, docs/sampling.md.)
    public static class Waiter
    {
        static int waits;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Join(Thread t) { t.Join(); waits++; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Nap(int ms) { Thread.Sleep(ms); waits++; }

        public static void Run(int ms)
        {
            double x = 0;
            var t = new Thread(() => { x = Hot.Spin(ms); });
            t.Start();
            Join(t);
            Nap(ms / 2);
            Console.WriteLine("wait done " + (x > 0) + " " + waits);
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

    // A program that takes SIGPROF, the sampling engine's signal, then
    // spins in Hot.Spin: "ign" ignores it (SIG_IGN), "dfl" resets it to its
    // default action (which ends the process), "own" gives it a handler of
    // its own (libc's getpid: harmless in a signal, and no managed code).
    public static class SigProf
    {
        const int SIGPROF = 27;
        [DllImport("libc", EntryPoint = "signal")]
        static extern IntPtr Signal(int sig, IntPtr handler);

        public static void Run(string kind, int ms)
        {
            IntPtr h = kind switch
            {
                "ign" => (IntPtr)1,
                "dfl" => IntPtr.Zero,
                "own" => NativeLibrary.GetExport(NativeLibrary.Load("libc.so.6"), "getpid"),
                _ => throw new ArgumentException("sigprof: ign, dfl or own, not " + kind),
            };
            Signal(SIGPROF, h);
            Console.WriteLine("SIGPROF taken (" + kind + ")");
            Hot.Run(ms);
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

    // What IL rewriting must get right (the instrumentation engine's hard
    // cases), each with exact expected counts: several returns, constructors
    // and static constructors, existing exception clauses (catch, filter,
    // finally, fault via using, rethrow), iterator and async state machines,
    // shared and unshared generics, long branches, small max stacks, struct
    // and byref returns, synchronized methods, stackalloc, exceptions through
    // many frames. The output (checksums) must not change under a profiler.
    public static class Hard
    {
        public static void Run(int n)
        {
            Returns.Run(n); Ctors.Run(n); Clauses.Run(n); Iter.Run(n); AsyncWork.Run(n);
            MoreGenerics.Run(n); Big.Run(n); Values.Run(n); Dive.Run(n);
        }

        // Expectation for a compiler-generated state machine's MoveNext: the
        // nested type's name is the compiler's (e.g. <Evens>d__1).
        public static void ExpectStateMachine(Type outer, string method, long calls)
        {
            foreach (var t in outer.GetNestedTypes(System.Reflection.BindingFlags.NonPublic))
                if (t.Name.StartsWith("<" + method + ">d__"))
                    Program.Expect(outer.FullName.Replace('+', '.') + "." + t.Name + ".MoveNext", calls);
        }
    }

    public static class Returns
    {
        public static int Classify(int x)
        {
            if (x < 0) return -1;
            if (x == 0) return 0;
            if (x < 10) return 1;
            switch (x % 3)
            {
                case 0: return 3;
                case 1: return 4;
            }
            return 5;
        }

        public static void Early(int x, int[] acc)
        {
            if (x % 2 == 0) return;
            acc[0]++;
            if (x % 3 == 0) return;
            acc[1]++;
        }

        // A fat header with .maxstack 1: the rewritten body needs 3.
        public static int One() { int x = Environment.ProcessorCount; return x; }

        public static void Run(int n)
        {
            long s = 0; var acc = new int[2];
            for (int i = -5; i < n - 5; i++) { s += Classify(i); Early(i, acc); s += One() > 0 ? 1 : 0; }
            Console.WriteLine("returns " + s + " " + acc[0] + " " + acc[1]);
            Program.Expect("VbTest.Returns.Classify", n);
            Program.Expect("VbTest.Returns.Early", n);
            Program.Expect("VbTest.Returns.One", n);
        }
    }

    public class Shape0
    {
        public static int Made;
        static Shape0() { Made = 100; }
        public readonly int Sides;
        public Shape0(int sides) { Sides = sides; Made++; }
        public Shape0() : this(0) { }
    }

    public sealed class Poly : Shape0
    {
        public Poly(int sides) : base(sides) { }
    }

    public struct Pt
    {
        public int X, Y;
        public Pt(int x, int y) { X = x; Y = y; }
    }

    public static class Ctors
    {
        public static void Run(int n)
        {
            long s = 0;
            for (int i = 0; i < n; i++) { s += new Poly(i % 7).Sides + new Shape0().Sides; var p = new Pt(i, -i); s += p.X + p.Y; }
            Console.WriteLine("ctors " + s + " " + Shape0.Made);
            Program.Expect("VbTest.Shape0..cctor", 1);
            Program.Expect("VbTest.Shape0..ctor", 3L * n); // Shape0(int) from both, Shape0() once
            Program.Expect("VbTest.Poly..ctor", n);
            Program.Expect("VbTest.Pt..ctor", n);
        }
    }

    public static class Clauses
    {
        static int fin, caught, filtered, rethrown, disposed;

        sealed class Res : IDisposable { public void Dispose() { disposed++; } }

        public static void Thrower(int i) { if (i % 2 == 0) throw new InvalidOperationException("even " + i); }
        public static int AlwaysThrows(int i) => throw new InvalidOperationException("always " + i); // no ret at all
        public static bool Filter(Exception e) { filtered++; return e.Message.StartsWith("even"); }
        public static void Helper() { fin++; }
        public static void After() { }

        // try/catch/finally, a value returned from the try and from the catch.
        public static int TryAll(int i)
        {
            try { Thrower(i); return i; }
            catch (InvalidOperationException) { caught++; return -1; }
            finally { Helper(); }
        }

        // An exception filter; the catch swallows.
        public static int Filtered(int i)
        {
            try { Thrower(i); return 1; }
            catch (Exception e) when (Filter(e)) { return 0; }
        }

        // using (a finally that disposes) around a throw, then rethrow.
        public static void Rethrows(int i)
        {
            try { using (new Res()) Thrower(i); }
            catch (InvalidOperationException) { rethrown++; throw; }
        }

        public static void Run(int n)
        {
            long s = 0;
            for (int i = 0; i < n; i++)
            {
                s += TryAll(i) + Filtered(i);
                try { Rethrows(i); } catch (InvalidOperationException) { s++; }
                try { s += AlwaysThrows(i); } catch (InvalidOperationException) { s += 2; }
                After();
            }
            Console.WriteLine("clauses " + s + " " + fin + " " + caught + " " + filtered + " " + rethrown + " " + disposed);
            Program.Expect("VbTest.Clauses.TryAll", n);
            Program.Expect("VbTest.Clauses.Filtered", n);
            Program.Expect("VbTest.Clauses.Rethrows", n);
            Program.Expect("VbTest.Clauses.Thrower", 3L * n);
            Program.Expect("VbTest.Clauses.AlwaysThrows", n);
            Program.Expect("VbTest.Clauses.Helper", n);
            Program.Expect("VbTest.Clauses.Filter", (n + 1) / 2);
            Program.Expect("VbTest.Clauses.After", n);
        }
    }

    public static class Iter
    {
        public static IEnumerable<int> Evens(int n)
        {
            for (int i = 0; i < n; i++)
                if (i % 2 == 0) yield return i;
        }

        public static void Run(int n)
        {
            long s = 0;
            foreach (int x in Evens(n)) s += x;              // (n+1)/2 items, then the final MoveNext
            foreach (int x in Evens(n)) { s += x; if (x >= 10) break; } // 6 items, then Dispose
            Console.WriteLine("iter " + s);
            Program.Expect("VbTest.Iter.Evens", 2);
            Hard.ExpectStateMachine(typeof(Iter), "Evens", (n + 1) / 2 + 1 + 6);
        }
    }

    public static class AsyncWork
    {
        // Task.Yield always suspends: MoveNext runs twice per call, the second
        // time on a thread-pool thread.
        public static async Task<int> Twice(int x) { await Task.Yield(); return 2 * x; }

        // Completes without suspending (x >= 0): one MoveNext per call.
        public static async Task<int> Half(int x) { if (x < 0) await Task.Yield(); return x / 2; }

        // Suspends once per iteration (the Yield), never on the completed Half:
        // n + 1 MoveNext calls whatever the timing. (Awaiting Twice here would
        // suspend or not depending on whether the pool thread finished first.)
        public static async Task<long> Sum(int n)
        {
            long s = 0;
            for (int i = 0; i < n; i++)
            {
                await Task.Yield();
                s += await Half(i);
            }
            return s;
        }

        public static void Run(int n)
        {
            long s = Sum(n).GetAwaiter().GetResult();
            var ts = new Task<int>[n];
            for (int i = 0; i < n; i++) ts[i] = Twice(i);
            Task.WaitAll(ts);
            foreach (var t in ts) s += t.Result;
            Console.WriteLine("async " + s);
            Program.Expect("VbTest.AsyncWork.Sum", 1);
            Program.Expect("VbTest.AsyncWork.Half", n);
            Program.Expect("VbTest.AsyncWork.Twice", n);
            Hard.ExpectStateMachine(typeof(AsyncWork), "Sum", n + 1L);
            Hard.ExpectStateMachine(typeof(AsyncWork), "Half", n);
            Hard.ExpectStateMachine(typeof(AsyncWork), "Twice", 2L * n);
        }
    }

    public static class Cache<T>
    {
        public static int Inits;
        static readonly T[] last = new T[1];
        static Cache() { Inits++; }
        public static T Swap(T x) { T old = last[0]; last[0] = x; return old; }
    }

    public abstract class Visitor { public abstract T Visit<T>(T x); }
    public sealed class Echo : Visitor { public override T Visit<T>(T x) => x; }

    public struct Holder<T>
    {
        public T Value;
        public T Get() => Value;
    }

    public static class MoreGenerics
    {
        public static void Run(int n)
        {
            long s = 0; Visitor v = new Echo();
            for (int i = 0; i < n; i++)
            {
                s += Cache<int>.Swap(i) + (Cache<string>.Swap("s") ?? "").Length + Cache<Pt>.Swap(new Pt { X = i, Y = i }).X;
                s += v.Visit(i) + v.Visit("ab").Length;
                s += new Holder<long> { Value = i }.Get();
            }
            Console.WriteLine("generics " + s + " " + (Cache<int>.Inits + Cache<string>.Inits + Cache<Pt>.Inits));
            Program.Expect("VbTest.Cache<T>.Swap", 3L * n);
            Program.Expect("VbTest.Cache<T>..cctor", 3);
            Program.Expect("VbTest.Echo.Visit<T>", 2L * n);
            Program.Expect("VbTest.Holder<T>.Get", n);
        }
    }

    public static class Big
    {
        // Long enough that branches across its body need 32-bit offsets, and
        // a switch over many cases.
        public static long Mix(int x)
        {
            long a = x, b = x * 7L, c = x ^ 0x5A5A;
            for (int r = 0; r < 3; r++)
            {
                a = a * 31 + b; b = b * 17 + c; c = c * 13 + a; a ^= b >> 3; b ^= c << 2; c ^= a >> 5;
                a = a * 31 + b; b = b * 17 + c; c = c * 13 + a; a ^= b >> 3; b ^= c << 2; c ^= a >> 5;
                a = a * 31 + b; b = b * 17 + c; c = c * 13 + a; a ^= b >> 3; b ^= c << 2; c ^= a >> 5;
                a = a * 31 + b; b = b * 17 + c; c = c * 13 + a; a ^= b >> 3; b ^= c << 2; c ^= a >> 5;
                if (a % 5 == 0) continue;
                switch ((int)(c & 15))
                {
                    case 0: a += 1; break; case 1: a += 3; break; case 2: b += 5; break; case 3: b -= 7; break;
                    case 4: c += 11; break; case 5: c -= 13; break; case 6: a ^= 17; break; case 7: b ^= 19; break;
                    case 8: return a + b;
                    case 9: c ^= 23; break; case 10: a -= 29; break; case 11: b += 31; break;
                    case 12: return c;
                    default: a += b + c; break;
                }
            }
            return a ^ b ^ c;
        }

        public static void Run(int n)
        {
            long s = 0;
            for (int i = 0; i < n; i++) s += Mix(i);
            Console.WriteLine("big " + s);
            Program.Expect("VbTest.Big.Mix", n);
        }
    }

    public struct Vec3 { public double X, Y, Z; }

    public static class Values
    {
        static readonly int[] slots = new int[16];
        static readonly object gate = new object();
        static int locked;

        public static Vec3 Add(Vec3 a, Vec3 b) => new Vec3 { X = a.X + b.X, Y = a.Y + b.Y, Z = a.Z + b.Z };
        public static ref int Slot(int i) => ref slots[i & 15];
        public static (int, long) Pair(int x) => (x, 2L * x);

        [MethodImpl(MethodImplOptions.Synchronized)]
        public static void Locked() { locked++; }

        public static unsafe int Stack(int n)
        {
            int* p = stackalloc int[n + 1];
            for (int i = 0; i <= n; i++) p[i] = i;
            int s = 0;
            for (int i = 0; i <= n; i++) s += p[i];
            return s;
        }

        public static void Run(int n)
        {
            var v = new Vec3();
            long s = 0;
            for (int i = 0; i < n; i++)
            {
                v = Add(v, new Vec3 { X = 1, Y = 2, Z = 3 });
                Slot(i) += i;
                var (a, b) = Pair(i);
                s += a + b + Stack(i % 32);
                Locked();
            }
            lock (gate) s += slots[3];
            Console.WriteLine("values " + v.X + " " + v.Y + " " + v.Z + " " + s + " " + locked);
            Program.Expect("VbTest.Values.Add", n);
            Program.Expect("VbTest.Values.Slot", n);
            Program.Expect("VbTest.Values.Pair", n);
            Program.Expect("VbTest.Values.Stack", n);
            Program.Expect("VbTest.Values.Locked", n);
        }
    }

    // An exception from ten frames down, caught at the top: every frame on
    // the way closes; the next call hangs under the catcher again.
    public static class Dive
    {
        public static int Down(int d) { if (d == 0) throw new ArgumentException("bottom"); return Down(d - 1) + 1; }
        public static void Next() { }

        public static void Catcher()
        {
            try { Down(10); } catch (ArgumentException) { }
            Next();
        }

        public static void Run(int n)
        {
            for (int i = 0; i < n / 10; i++) Catcher();
            Console.WriteLine("dive " + n / 10);
            Program.Expect("VbTest.Dive.Down", 11L * (n / 10));
            Program.Expect("VbTest.Dive.Next", n / 10);
        }
    }

    // Framework-heavy work (LINQ, collections, Parallel.For, formatting),
    // then how many methods the runtime JIT-compiled in the whole process:
    // with enter/leave hooks the runtime refuses every ReadyToRun image and
    // compiles all of it; IL instrumentation must leave it precompiled.
    // Run with DOTNET_TieredCompilation=0 the count is deterministic (every
    // method compiled at most once).
    public static class JitCount
    {
        public static int Triple(int i) => i * 3;

        public static void Run()
        {
            var list = Enumerable.Range(0, 1000).Select(Triple).Where(i => i % 2 == 0).ToList();
            var groups = list.GroupBy(i => i % 10).ToDictionary(g => g.Key, g => g.Sum());
            long sum = 0;
            Parallel.For(0, 100, i => Interlocked.Add(ref sum, i));
            var sb = new StringBuilder();
            foreach (var kv in groups.OrderBy(k => k.Key))
                sb.Append(kv.Key).Append('=').Append(kv.Value.ToString("N0", CultureInfo.InvariantCulture)).Append(';');
            Console.WriteLine("jitcount " + sb.Length + " " + sum);
            Console.WriteLine("VBENCH jit " + System.Runtime.JitInfo.GetCompiledMethodCount());
            Program.Expect("VbTest.JitCount.Triple", 1000);
        }
    }
}
