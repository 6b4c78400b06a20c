// web: a service. An ASP.NET Core minimal API whose endpoint does known work
// per request; vbench starts it per run, drives it with a load generator and
// measures requests per second and latency (docs/suite.md, "Services").
//
//   GET /health  200 "ok" (readiness; never counted)
//   GET /work    Vbench.Web.Handler.Work: --n rounds of an integer hash over
//                a 64-element array (64 calls of Handler.Mix a round: the
//                small calls a tracer pays for), the result serialised with
//                System.Text.Json. One Work call per request, so under
//                tracing its calls equal the requests the load generator
//                completed, readiness probes aside.
//
// Run as: dotnet Web.dll --urls http://127.0.0.1:PORT [--n 1000]
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace Vbench.Web;

public sealed record Answer(int N, long Checksum, int[] Head);

public static class Handler
{
    public static int Rounds = 1000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Mix(int a, int b, int r) => a * 31 + (b ^ r);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static IResult Work()
    {
        var xs = new int[64];
        for (int i = 0; i < xs.Length; i++)
            xs[i] = (int)((uint)i * 2654435761u >> 7);
        long sum = 0;
        for (int r = 0; r < Rounds; r++)
            for (int i = 0; i < xs.Length; i++)
            {
                xs[i] = Mix(xs[i], xs[(i + 1) & 63], r);
                sum += xs[i] & 0xff;
            }
        var json = JsonSerializer.Serialize(new Answer(Rounds, sum, xs[..8]));
        return Results.Content(json, "application/json");
    }
}

public static class Program
{
    public static void Main(string[] argv)
    {
        // --n is ours; everything else (--urls) is the host's.
        var rest = new List<string>();
        for (int i = 0; i < argv.Length; i++)
        {
            if (argv[i] == "--n" && i + 1 < argv.Length)
                Handler.Rounds = int.Parse(argv[++i]);
            else
                rest.Add(argv[i]);
        }
        var builder = WebApplication.CreateSlimBuilder(rest.ToArray());
        // Per-request logs would measure the console, not the service.
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        var app = builder.Build();
        app.MapGet("/health", () => "ok");
        app.MapGet("/work", Handler.Work);
        app.Run();
    }
}
