// NettraceStacks: reads a nettrace file (EventPipe's format, as
// DOTNET_EnableEventPipe or dotnet-trace write it) with TraceEvent and prints,
// as one JSON object on stdout, the stacks of its SampleProfiler thread
// samples, merged per thread and counted:
//
//   {"managed": N, "external": M, "stacks": [{"thread": tid, "count": k, "frames": [root, ..., leaf]}]}
//
// Only samples of type Managed (the thread was running managed code) are
// stacks: EventPipe's sampler takes every thread every interval, and a
// thread waiting (Thread.Join, a lock, a sleep) or in native code is an
// External sample, which "external" counts and the stacks leave out: the
// stacks are CPU samples of managed code, what vbench's CPU sampler takes.
// Frames are named Namespace.Type.Method, as vbench's profile.json names them
// (TraceEvent's signature and module prefix removed).
//
// Usage: NettraceStacks TRACE.nettrace. A file TraceEvent cannot read exits 1
// with its reason on stderr.
using System.Text.Json;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;

if (args.Length != 1)
{
    Console.Error.WriteLine("usage: NettraceStacks TRACE.nettrace");
    return 2;
}
string path = args[0];
string tmp = Path.Combine(Path.GetTempPath(), "vbench-nettrace-" + Environment.ProcessId + "-" + Guid.NewGuid().ToString("N"));
Directory.CreateDirectory(tmp);
try
{
    if (!File.Exists(path))
    {
        Console.Error.WriteLine($"{path}: no such file");
        return 1;
    }
    string etlx = TraceLog.CreateFromEventPipeDataFile(path, Path.Combine(tmp, "trace.etlx"));
    using var log = new TraceLog(etlx);
    long managed = 0, external = 0, other = 0;
    var stacks = new Dictionary<(int, string), (int Thread, List<string> Frames, long Count)>();
    foreach (TraceEvent ev in log.Events)
    {
        if (ev.ProviderName != "Microsoft-DotNETCore-SampleProfiler")
            continue;
        object? type = ev.PayloadByName("Type");
        int t = type == null ? -1 : Convert.ToInt32(type);
        if (t == 1) { external++; continue; }
        if (t != 2) { other++; continue; }
        managed++;
        var frames = new List<string>();
        for (TraceCallStack? s = ev.CallStack(); s != null; s = s.Caller)
            frames.Add(Name(s.CodeAddress));
        frames.Reverse();
        var key = (ev.ThreadID, string.Join("\n", frames));
        stacks[key] = stacks.TryGetValue(key, out var v) ? (v.Thread, v.Frames, v.Count + 1) : (ev.ThreadID, frames, 1);
    }
    using var stdout = Console.OpenStandardOutput();
    using var w = new Utf8JsonWriter(stdout);
    w.WriteStartObject();
    w.WriteNumber("managed", managed);
    w.WriteNumber("external", external);
    w.WriteNumber("other", other);
    w.WriteStartArray("stacks");
    foreach (var s in stacks.Values)
    {
        w.WriteStartObject();
        w.WriteNumber("thread", s.Thread);
        w.WriteNumber("count", s.Count);
        w.WriteStartArray("frames");
        foreach (var f in s.Frames)
            w.WriteStringValue(f);
        w.WriteEndArray();
        w.WriteEndObject();
    }
    w.WriteEndArray();
    w.WriteEndObject();
    w.Flush();
    return 0;
}
catch (Exception e)
{
    Console.Error.WriteLine($"{path}: {e.GetType().Name}: {e.Message}");
    return 1;
}
finally
{
    try { Directory.Delete(tmp, true); } catch { }
}

// Name is a frame's method as vbench names it: TraceEvent's FullMethodName
// without its parameter list; an address no method covers is "?" (TraceEvent's
// own word for it).
static string Name(TraceCodeAddress a)
{
    string n = a.FullMethodName;
    if (string.IsNullOrEmpty(n))
        return "?";
    int paren = n.IndexOf('(');
    return paren > 0 ? n[..paren] : n;
}
