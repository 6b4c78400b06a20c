// PdbLines reads the portable PDBs of .NET modules (embedded in the module,
// or the .pdb file beside it) and prints, for the methods asked, their
// sequence points: which source line each IL offset belongs to.
//
// stdin:  [{"module": "/path/App.dll", "tokens": [100663297, ...]}, ...]
// stdout: [{"module": ..., "pdb": "embedded" | "/path/App.pdb" | "",
//           "note": why there are no lines ("" when there are),
//           "docs": ["/src/Program.cs", ...],
//           "methods": {"100663297": [[il, line, doc], ...]}}, ...]
// A sequence point is [IL offset, start line, document index]; hidden ones
// (line 0xfeefee) are [il, 0, doc]. A .pdb whose id is not the one the
// module's CodeView debug directory entry names (another build) is never
// read for lines: its note says so.
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text.Json;
using System.Text.Json.Serialization;

public sealed class Request
{
    [JsonPropertyName("module")] public string Module { get; set; }
    [JsonPropertyName("tokens")] public List<uint> Tokens { get; set; }
}

public sealed class Answer
{
    [JsonPropertyName("module")] public string Module { get; set; }
    [JsonPropertyName("pdb")] public string Pdb { get; set; } = "";
    [JsonPropertyName("note")] public string Note { get; set; } = "";
    [JsonPropertyName("docs")] public List<string> Docs { get; set; } = new();
    [JsonPropertyName("methods")] public Dictionary<string, List<int[]>> Methods { get; set; } = new();
}

[JsonSerializable(typeof(List<Request>))]
[JsonSerializable(typeof(List<Answer>))]
internal partial class Json : JsonSerializerContext { }

public static class Program
{
    public static int Main()
    {
        var requests = JsonSerializer.Deserialize(Console.In.ReadToEnd(), Json.Default.ListRequest) ?? new List<Request>();
        var answers = new List<Answer>();
        foreach (var r in requests)
        {
            var a = new Answer { Module = r.Module };
            try { Read(r, a); }
            catch (Exception e) when (e is IOException || e is BadImageFormatException || e is UnauthorizedAccessException || e is InvalidOperationException)
            {
                a.Note = $"{Path.GetFileName(r.Module)}: {e.Message}";
                a.Methods.Clear();
            }
            answers.Add(a);
        }
        Console.Out.Write(JsonSerializer.Serialize(answers, Json.Default.ListAnswer));
        return 0;
    }

    static void Read(Request r, Answer a)
    {
        string name = Path.GetFileName(r.Module);
        using var pe = new PEReader(File.OpenRead(r.Module));
        var dir = pe.ReadDebugDirectory();
        MetadataReaderProvider provider = null;
        try
        {
            foreach (var e in dir)
                if (e.Type == DebugDirectoryEntryType.EmbeddedPortablePdb)
                {
                    provider = pe.ReadEmbeddedPortablePdbDebugDirectoryData(e);
                    a.Pdb = "embedded";
                    break;
                }
            if (provider == null)
            {
                DebugDirectoryEntry? cv = null;
                foreach (var e in dir)
                    if (e.Type == DebugDirectoryEntryType.CodeView) { cv = e; break; }
                if (cv == null)
                {
                    a.Note = $"{name} was built without debug symbols (no PDB): method-level results only";
                    return;
                }
                var data = pe.ReadCodeViewDebugDirectoryData(cv.Value);
                string beside = Path.ChangeExtension(r.Module, ".pdb");
                string pdb = File.Exists(beside) ? beside : File.Exists(data.Path) ? data.Path : null;
                if (pdb == null)
                {
                    a.Note = $"{name}: no PDB beside it ({Path.GetFileName(beside)}) nor at {data.Path}: method-level results only";
                    return;
                }
                provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(pdb));
                var id = new BlobContentId(provider.GetMetadataReader().DebugMetadataHeader.Id);
                var want = new BlobContentId(data.Guid, cv.Value.Stamp);
                if (!id.Equals(want))
                {
                    a.Note = $"{pdb} does not match {name} (PDB id {id.Guid}, the module's {want.Guid}: another build): ignored, method-level results only";
                    return;
                }
                a.Pdb = pdb;
            }
            var md = provider.GetMetadataReader();
            var docs = new Dictionary<DocumentHandle, int>();
            foreach (uint token in r.Tokens)
            {
                if ((token >> 24) != 0x06) continue;
                int row = (int)(token & 0xFFFFFF);
                if (row < 1 || row > md.MethodDebugInformation.Count) continue;
                var info = md.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
                var points = new List<int[]>();
                foreach (var sp in info.GetSequencePoints())
                {
                    if (!docs.TryGetValue(sp.Document, out int d))
                    {
                        d = a.Docs.Count;
                        docs[sp.Document] = d;
                        a.Docs.Add(md.GetString(md.GetDocument(sp.Document).Name));
                    }
                    points.Add(new[] { sp.Offset, sp.IsHidden ? 0 : sp.StartLine, d });
                }
                if (points.Count > 0) a.Methods[token.ToString()] = points;
            }
        }
        finally { provider?.Dispose(); }
    }
}
