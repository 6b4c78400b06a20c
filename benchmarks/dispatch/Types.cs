// The types dispatch calls through. Every counted method is NoInlining: the
// JIT would otherwise inline these one-liners (and devirtualise some of the
// calls), and an inlined call is invisible to a profiler.
using System.Runtime.CompilerServices;

namespace Vbench.Dispatch;

/// <summary>Interface calls: three classes and one struct implement it.</summary>
public interface IOp
{
    long Apply(long x);
}

public sealed class AddOp : IOp
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public long Apply(long x) => x + 7;
}

public sealed class MulOp : IOp
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public long Apply(long x) => x * 3;
}

public sealed class XorOp : IOp
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public long Apply(long x) => x ^ 0x5555;
}

/// <summary>A value-type implementation: Fold&lt;ShiftOp&gt; gets its own specialised code.</summary>
public readonly struct ShiftOp : IOp
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public long Apply(long x) => x ^ (x >> 3);
}

/// <summary>Virtual calls: an abstract method, a virtual one, overrides calling base.</summary>
public abstract class Shape
{
    public abstract long Area();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public virtual long Scale(long k) => Area() * k;
}

public class Rect : Shape
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public override long Area() => 6;
}

public sealed class Square : Rect
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public override long Area() => base.Area() + 3;
}

public sealed class Circle : Shape
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public override long Area() => 28;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public override long Scale(long k) => base.Scale(k) + 1;
}

/// <summary>A generic type, instantiated over a value type (long) and a reference type (string).</summary>
public sealed class Box<T>
{
    private readonly T _value;

    public Box(T value) => _value = value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public T Get() => _value;
}

/// <summary>A generic virtual method: dispatch needs a run-time lookup per instantiation.</summary>
public abstract class Visitor
{
    public abstract long Visit<T>(T item);
}

public sealed class SizeVisitor : Visitor
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public override long Visit<T>(T item) => item switch
    {
        long l => l & 0xff,
        string s => s.Length,
        _ => 0,
    };
}

/// <summary>Generic methods, instantiated over value and reference types.</summary>
public static class Kernels
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Fold<TOp>(TOp op, long[] data) where TOp : IOp
    {
        long acc = 0;
        foreach (long x in data)
            acc += op.Apply(x);
        return acc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T Identity<T>(T x) => x;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool IsKept(long x) => x % 3 != 0;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Project(long x) => x * 2 + 1;
}
