// A small web app for the harness's service tests, unlike benchmarks/web:
//   GET /ping   TestWeb.Api.Handle, one call per request: a small sort and
//               a JSON answer.
//   GET /ready  200 once started; 503 forever with --never-ready.
// --crash-after N: the process aborts (FailFast) at the Nth /ping, a server
// that crashes under load. --fail-every N: every Nth /ping answers 500.
// --hang-on-stop: stopping (SIGTERM) never finishes, a server that does not
// stop. --urls is the host's.
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace TestWeb;

public static class Api
{
    public static int CrashAfter = -1, FailEvery;
    static int served;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static IResult Handle()
    {
        int n = Interlocked.Increment(ref served);
        if (n == CrashAfter)
            Environment.FailFast("TestWeb: crashing under load as asked (--crash-after)");
        if (FailEvery > 0 && n % FailEvery == 0)
            return Results.StatusCode(500);
        var xs = new int[32];
        for (int i = 0; i < xs.Length; i++)
            xs[i] = (i * 7919) % 101;
        Array.Sort(xs);
        return Results.Content(JsonSerializer.Serialize(new { min = xs[0], max = xs[^1] }), "application/json");
    }
}

public static class Program
{
    public static void Main(string[] argv)
    {
        bool neverReady = false, hangOnStop = false;
        var rest = new List<string>();
        for (int i = 0; i < argv.Length; i++)
        {
            switch (argv[i])
            {
                case "--never-ready": neverReady = true; break;
                case "--crash-after": Api.CrashAfter = int.Parse(argv[++i]); break;
                case "--fail-every": Api.FailEvery = int.Parse(argv[++i]); break;
                case "--hang-on-stop": hangOnStop = true; break;
                default: rest.Add(argv[i]); break;
            }
        }
        var builder = WebApplication.CreateSlimBuilder(rest.ToArray());
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        var app = builder.Build();
        app.MapGet("/ready", () => neverReady ? Results.StatusCode(503) : Results.Text("ok"));
        app.MapGet("/ping", Api.Handle);
        if (hangOnStop)
            app.Lifetime.ApplicationStopping.Register(() => Thread.Sleep(Timeout.Infinite));
        app.Run();
    }
}
