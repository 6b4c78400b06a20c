// nbody: the benchmarks game's n-body simulation of the Jovian planets.
// Floating-point work in a few long-running loops and almost no calls (one
// Advance call per --batch steps, not per step as in the game): a tracing
// profiler should cost close to nothing here. A large overhead on
// nbody means a cost that is not per call (JIT-time instrumentation slowing
// the generated code, sampling too often, a background thread hogging a core).
//
// Exact calls in the whole process (no in-process warm-up), with
// steps = round(--steps * --scale), batch = --batch:
//   Vbench.NBody.Program.Run              = 1
//   Vbench.NBody.NBodySystem..ctor        = 1
//   Vbench.NBody.NBodySystem.OffsetMomentum = 1
//   Vbench.NBody.NBodySystem.Advance      = ceil(steps / batch)
//   Vbench.NBody.NBodySystem.Energy       = 2   (before and after)
// The checksum is the two energies printed with 9 decimals, as the game does
// (-0.169075164 and, for 5,000,000 steps, -0.169083134; for 50,000,000,
// -0.169059907).
using System.Globalization;
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.NBody;

public sealed class Body
{
    public double X, Y, Z, Vx, Vy, Vz, Mass;
}

public sealed class NBodySystem
{
    private const double Pi = 3.141592653589793;
    private const double SolarMass = 4 * Pi * Pi;
    private const double DaysPerYear = 365.24;

    private readonly Body[] _bodies;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public NBodySystem()
    {
        _bodies =
        [
            new Body { Mass = SolarMass }, // Sun
            new Body // Jupiter
            {
                X = 4.84143144246472090e+00, Y = -1.16032004402742839e+00, Z = -1.03622044471123109e-01,
                Vx = 1.66007664274403694e-03 * DaysPerYear, Vy = 7.69901118419740425e-03 * DaysPerYear,
                Vz = -6.90460016972063023e-05 * DaysPerYear, Mass = 9.54791938424326609e-04 * SolarMass,
            },
            new Body // Saturn
            {
                X = 8.34336671824457987e+00, Y = 4.12479856412430479e+00, Z = -4.03523417114321381e-01,
                Vx = -2.76742510726862411e-03 * DaysPerYear, Vy = 4.99852801234917238e-03 * DaysPerYear,
                Vz = 2.30417297573763929e-05 * DaysPerYear, Mass = 2.85885980666130812e-04 * SolarMass,
            },
            new Body // Uranus
            {
                X = 1.28943695621391310e+01, Y = -1.51111514016986312e+01, Z = -2.23307578892655734e-01,
                Vx = 2.96460137564761618e-03 * DaysPerYear, Vy = 2.37847173959480950e-03 * DaysPerYear,
                Vz = -2.96589568540237556e-05 * DaysPerYear, Mass = 4.36624404335156298e-05 * SolarMass,
            },
            new Body // Neptune
            {
                X = 1.53796971148509165e+01, Y = -2.59193146099879641e+01, Z = 1.79258772950371181e-01,
                Vx = 2.68067772490389322e-03 * DaysPerYear, Vy = 1.62824170038242295e-03 * DaysPerYear,
                Vz = -9.51592254519715870e-05 * DaysPerYear, Mass = 5.15138902046611451e-05 * SolarMass,
            },
        ];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public void OffsetMomentum()
    {
        double px = 0, py = 0, pz = 0;
        foreach (var b in _bodies)
        {
            px += b.Vx * b.Mass;
            py += b.Vy * b.Mass;
            pz += b.Vz * b.Mass;
        }
        var sun = _bodies[0];
        sun.Vx = -px / SolarMass;
        sun.Vy = -py / SolarMass;
        sun.Vz = -pz / SolarMass;
    }

    /// <summary>Advances the system by `steps` steps of dt. The step loop is
    /// written out here, not called, so the only call is Advance itself, even
    /// under a profiler that disables inlining.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public void Advance(double dt, int steps)
    {
        var bodies = _bodies;
        for (int s = 0; s < steps; s++)
        {
            for (int i = 0; i < bodies.Length; i++)
            {
                var a = bodies[i];
                for (int j = i + 1; j < bodies.Length; j++)
                {
                    var b = bodies[j];
                    double dx = a.X - b.X, dy = a.Y - b.Y, dz = a.Z - b.Z;
                    double d2 = dx * dx + dy * dy + dz * dz;
                    double mag = dt / (d2 * Math.Sqrt(d2));
                    a.Vx -= dx * b.Mass * mag;
                    a.Vy -= dy * b.Mass * mag;
                    a.Vz -= dz * b.Mass * mag;
                    b.Vx += dx * a.Mass * mag;
                    b.Vy += dy * a.Mass * mag;
                    b.Vz += dz * a.Mass * mag;
                }
            }
            foreach (var b in bodies)
            {
                b.X += dt * b.Vx;
                b.Y += dt * b.Vy;
                b.Z += dt * b.Vz;
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public double Energy()
    {
        double e = 0;
        var bodies = _bodies;
        for (int i = 0; i < bodies.Length; i++)
        {
            var a = bodies[i];
            e += 0.5 * a.Mass * (a.Vx * a.Vx + a.Vy * a.Vy + a.Vz * a.Vz);
            for (int j = i + 1; j < bodies.Length; j++)
            {
                var b = bodies[j];
                double dx = a.X - b.X, dy = a.Y - b.Y, dz = a.Z - b.Z;
                e -= a.Mass * b.Mass / Math.Sqrt(dx * dx + dy * dy + dz * dz);
            }
        }
        return e;
    }
}

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "nbody",
            new Option("steps", "5000000", "simulation steps (times --scale)"),
            new Option("batch", "1000", "steps per Advance call"));
        int steps = args.Scaled("steps");
        int batch = args.Int("batch");

        long start = Clock.Start();
        var (before, after) = Run(steps, batch);
        long elapsed = Clock.ElapsedNs(start);

        string F(double e) => e.ToString("F9", CultureInfo.InvariantCulture);
        new VbenchLine(elapsed, F(before) + "," + F(after))
            .Calls("Vbench.NBody.Program.Run", 1)
            .Calls("Vbench.NBody.NBodySystem..ctor", 1)
            .Calls("Vbench.NBody.NBodySystem.OffsetMomentum", 1)
            .Calls("Vbench.NBody.NBodySystem.Advance", (steps + (long)batch - 1) / batch)
            .Calls("Vbench.NBody.NBodySystem.Energy", 2)
            .Add("steps", steps)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (double Before, double After) Run(int steps, int batch)
    {
        var system = new NBodySystem();
        system.OffsetMomentum();
        double before = system.Energy();
        for (int done = 0; done < steps; done += batch)
            system.Advance(0.01, Math.Min(batch, steps - done));
        return (before, system.Energy());
    }
}
