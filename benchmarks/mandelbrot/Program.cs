// mandelbrot: multi-threaded rendering. Rows are spread over the thread pool
// with Parallel.For; every pixel is one call to Mandel.Iterate, which spends
// tens to hundreds of loop iterations of floating-point work. Stresses a
// profiler's per-thread state (several threads in the same methods at once)
// at a moderate call rate.
//
// The image covers [-2, 0.5] x [-1.25, 1.25]; --scale multiplies the height
// (finer vertical sampling of the same region, so the work per pixel stays
// about the same and the total grows with the pixel count).
//
// Exact calls in the whole process (no in-process warm-up):
//   Vbench.Mandelbrot.Mandel.Iterate   = width * height * repeat
//   Vbench.Mandelbrot.Mandel.RenderRow = height * repeat
//   Vbench.Mandelbrot.Mandel.UpperRow  = ceil(height / 2) * repeat
//   Vbench.Mandelbrot.Mandel.LowerRow  = floor(height / 2) * repeat
//   Vbench.Mandelbrot.Mandel.Render    = repeat
// where height = round(--height * --scale).
//
// Shares: the image is symmetric about the real axis (c and its conjugate
// escape after the same number of iterations), so with an even height the
// lower half's rows are the upper half's mirror images, the same work pixel
// for pixel. RenderRow hands the upper half to UpperRow and the lower half to
// LowerRow, the same code, and the rows are taken in alternating order (top,
// bottom, second, second from the bottom, ...) so that whatever slows the
// threads down hits both halves alike. Of the samples whose stack holds
// either, each holds half:
//   share.Vbench.Mandelbrot.Mandel.UpperRow = share...LowerRow = 0.5
// declared only when that is true of the image rendered: an even height and
// every row's iteration counts equal to its mirror's (checked after the clock
// stops; floating-point rounding could in principle split a pair).
//
// Checksum: FNV-1a of every pixel's iteration count, row by row in row order
// (each row hashed by whichever thread rendered it, the rows combined in
// order afterwards), so independent of scheduling.
using System.Runtime.CompilerServices;
using System.Text;
using Vbench.Common;

namespace Vbench.Mandelbrot;

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "mandelbrot",
            new Option("width", "1000", "image width in pixels"),
            new Option("height", "1000", "image height in pixels (times --scale)"),
            new Option("max-iter", "200", "iteration limit per pixel"),
            new Option("repeat", "4", "how many times the image is rendered"),
            new Option("threads", "0", "parallelism (0: one per core)"),
            new Option("pgm", "", "write the image to this file (binary PGM)"));
        int width = args.Int("width");
        int height = args.Scaled("height");
        int maxIter = args.Int("max-iter");
        int repeat = args.Int("repeat");
        int threads = args.Int("threads", min: 0);
        if (threads == 0)
            threads = Environment.ProcessorCount;
        if ((long)width * height > 1 << 28)
            args.Die("--width times --height is too large");

        var image = new int[width * height];
        var rowHashes = new ulong[height];

        long start = Clock.Start();
        for (int r = 0; r < repeat; r++)
            Mandel.Render(width, height, maxIter, threads, image, rowHashes);
        long elapsed = Clock.ElapsedNs(start);

        ulong h = Fnv.Offset;
        foreach (ulong rh in rowHashes)
            h = Fnv.Mix(h, rh);

        if (args.String("pgm") is { Length: > 0 } path)
            WritePgm(path, width, height, maxIter, image);

        var line = new VbenchLine(elapsed, Fnv.Hex(h))
            .Calls("Vbench.Mandelbrot.Mandel.Iterate", (long)width * height * repeat)
            .Calls("Vbench.Mandelbrot.Mandel.RenderRow", (long)height * repeat)
            .Calls("Vbench.Mandelbrot.Mandel.UpperRow", (long)Mandel.Upper(height) * repeat)
            .Calls("Vbench.Mandelbrot.Mandel.LowerRow", (long)(height - Mandel.Upper(height)) * repeat)
            .Calls("Vbench.Mandelbrot.Mandel.Render", repeat);
        if (Mirrored(width, height, image))
            line.Share("Vbench.Mandelbrot.Mandel.UpperRow", 0.5).Share("Vbench.Mandelbrot.Mandel.LowerRow", 0.5);
        line.Add("width", width)
            .Add("height", height)
            .Add("threads", threads)
            .Print();
        return 0;
    }

    /// <summary>Whether the lower half of the image is the upper half's mirror image, iteration count for count.</summary>
    private static bool Mirrored(int width, int height, int[] image)
    {
        if (height % 2 != 0)
            return false;
        for (int y = 0; y < height / 2; y++)
        {
            var row = image.AsSpan(y * width, width);
            if (!row.SequenceEqual(image.AsSpan((height - 1 - y) * width, width)))
                return false;
        }
        return true;
    }

    private static void WritePgm(string path, int width, int height, int maxIter, int[] image)
    {
        using var f = File.Create(path);
        f.Write(Encoding.ASCII.GetBytes($"P5\n{width} {height}\n255\n"));
        var pixels = new byte[image.Length];
        for (int i = 0; i < image.Length; i++)
            pixels[i] = (byte)(255 - (long)image[i] * 255 / maxIter); // the set itself is black
        f.Write(pixels);
    }
}

public static class Mandel
{
    private const double X0 = -2.0, Y0 = -1.25, Extent = 2.5;

    /// <summary>Rows 0 .. Upper(height)-1 are the upper half: UpperRow renders them.</summary>
    public static int Upper(int height) => (height + 1) / 2;

    /// <summary>
    /// Renders every row, in parallel; rowHashes[y] gets row y's hash. The k-th row taken is
    /// y = k/2 for even k and height-1-k/2 for odd k: the halves alternate.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Render(int width, int height, int maxIter, int threads, int[] image, ulong[] rowHashes)
    {
        var options = new ParallelOptions { MaxDegreeOfParallelism = threads };
        Parallel.For(0, height, options, k =>
        {
            int y = k % 2 == 0 ? k / 2 : height - 1 - k / 2;
            rowHashes[y] = RenderRow(y, width, height, maxIter, image);
        });
    }

    // The half's hash comes back through `out`, not as the return value: a
    // call in tail position could become a jump, and RenderRow's frame would
    // vanish from the stack (and from a tracer's counts).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong RenderRow(int y, int width, int height, int maxIter, int[] image)
    {
        ulong h;
        if (y < Upper(height))
            UpperRow(y, width, height, maxIter, image, out h);
        else
            LowerRow(y, width, height, maxIter, image, out h);
        return h;
    }

    // UpperRow and LowerRow are the same code (keep them so): their shares of
    // the samples are the halves' shares of the work.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void UpperRow(int y, int width, int height, int maxIter, int[] image, out ulong hash) =>
        hash = Row(y, width, height, maxIter, image);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void LowerRow(int y, int width, int height, int maxIter, int[] image, out ulong hash) =>
        hash = Row(y, width, height, maxIter, image);

    /// <summary>Row y's pixels and their hash; inlined into both halves.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Row(int y, int width, int height, int maxIter, int[] image)
    {
        double ci = Y0 + Extent * (y + 0.5) / height;
        ulong h = Fnv.Offset;
        int row = y * width;
        for (int x = 0; x < width; x++)
        {
            double cr = X0 + Extent * (x + 0.5) / width;
            int n = Iterate(cr, ci, maxIter);
            image[row + x] = n;
            h = Fnv.Mix(h, (ulong)n);
        }
        return h;
    }

    /// <summary>Escape-time iteration count of c = cr + i*ci, at most maxIter.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Iterate(double cr, double ci, int maxIter)
    {
        double zr = 0, zi = 0, zr2 = 0, zi2 = 0;
        int n = 0;
        while (n < maxIter && zr2 + zi2 <= 4.0)
        {
            zi = 2 * zr * zi + ci;
            zr = zr2 - zi2 + cr;
            zr2 = zr * zr;
            zi2 = zi * zi;
            n++;
        }
        return n;
    }
}
