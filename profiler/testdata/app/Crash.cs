// Crashes as real programs crash, for the harness's failure messages: an
// unhandled exception thrown deep in the program's own frames, under
// framework frames (LINQ), and Environment.FailFast the same way. The stack
// is long, so its last lines are far from the error line.
using System;
using System.Linq;
using System.Runtime.CompilerServices;

namespace VbTest
{
    public static class Crasher
    {
        public static int Throw(int depth) =>
            Enumerable.Range(0, 1).Select(_ => Down(depth, fail: false)).Sum();

        public static int FailFast(int depth) =>
            Enumerable.Range(0, 1).Select(_ => Down(depth, fail: true)).Sum();

        // Not a tail call (1 + ...), so every level keeps its frame.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Down(int depth, bool fail) => depth > 0 ? 1 + Down(depth - 1, fail) : Bottom(fail);

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Bottom(bool fail)
        {
            if (fail)
            {
                Environment.FailFast("vbtest: giving up on purpose");
            }
            throw new InvalidOperationException("boom at the bottom");
        }

        // A fault in native code (libc's strlen reading address 8), under the
        // same kind of stack: CoreCLR cannot turn it into an exception, puts
        // SIGSEGV back to the default and lets the fault kill the process.
        public static int Segv(int depth) =>
            Enumerable.Range(0, 1).Select(_ => DownNative(depth)).Sum();

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int DownNative(int depth) => depth > 0 ? 1 + DownNative(depth - 1) : BottomNative();

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int BottomNative() => (int)strlen((IntPtr)8);

        [System.Runtime.InteropServices.DllImport("libc")]
        static extern nint strlen(IntPtr s);
    }
}
