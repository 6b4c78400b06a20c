// vbench doctor's runtime-only program: CoreCLR starts, loads the profiler
// under test, runs Main and exits 0. Needs no SDK (`dotnet --version` does).
class VbenchDoctor { static int Main() { return 0; } }
