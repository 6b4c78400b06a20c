// Programs a user stops with Ctrl-C or SIGTERM: each makes known calls,
// prints "ready", then waits the way servers wait (asleep, reading stdin,
// spinning in managed code), or handles Ctrl-C itself and exits normally.
using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace VbTest
{
    public static class Stopper
    {
        static volatile int spun;

        static void Ready()
        {
            Console.WriteLine("ready");
            Console.Out.Flush();
        }

        public static void Sleep(int n)
        {
            Loop.Run(n);
            Ready();
            Thread.Sleep(Timeout.Infinite);
        }

        public static void ReadLine(int n)
        {
            Loop.Run(n);
            Ready();
            Console.ReadLine();
            Console.WriteLine("stdin closed");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Spin() { while (true) spun++; }

        public static void Busy(int n)
        {
            Loop.Run(n);
            Ready();
            Spin();
        }

        // Ctrl-C is the program's own: it cancels the termination, makes
        // more calls and returns 0. Its profile must be the complete one.
        public static int Cancel(int n)
        {
            var stop = new ManualResetEventSlim();
            Console.CancelKeyPress += (_, e) => { e.Cancel = true; stop.Set(); };
            Loop.Run(n);
            Ready();
            stop.Wait();
            Loop.Run(n);
            Console.WriteLine("stopped cleanly");
            return 0;
        }
    }
}
