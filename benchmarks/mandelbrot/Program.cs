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
//   Vbench.Mandelbrot.Mandel.Render    = repeat
// where height = round(--height * --scale).
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

        new VbenchLine(elapsed, Fnv.Hex(h))
            .Calls("Vbench.Mandelbrot.Mandel.Iterate", (long)width * height * repeat)
            .Calls("Vbench.Mandelbrot.Mandel.RenderRow", (long)height * repeat)
            .Calls("Vbench.Mandelbrot.Mandel.Render", repeat)
            .Add("width", width)
            .Add("height", height)
            .Add("threads", threads)
            .Print();
        return 0;
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

    /// <summary>Renders every row, in parallel; rowHashes[y] gets row y's hash.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Render(int width, int height, int maxIter, int threads, int[] image, ulong[] rowHashes)
    {
        var options = new ParallelOptions { MaxDegreeOfParallelism = threads };
        Parallel.For(0, height, options, y => rowHashes[y] = RenderRow(y, width, height, maxIter, image));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong RenderRow(int y, int width, int height, int maxIter, int[] image)
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
