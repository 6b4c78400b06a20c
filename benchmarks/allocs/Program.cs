// allocs: known counts of known types along known paths, the ground truth
// for the allocation engines (issue 36). Every object is stored into a
// static ring (Keep), so it escapes: none can be stack-allocated, and the
// ring's turnover makes the GC collect, as a real program's garbage does.
//
// With O = round(--orders * scale), L = --lines, R = round(--reissues * scale)
// and N = round(--notes * scale), the whole process allocates exactly:
//   Vbench.Allocs.Order     = O + R  (O by Shop.NewOrder, R by Returns.Reissue)
//   Vbench.Allocs.OrderLine = O * L  (by Shop.AddLine, called from Shop.NewOrder)
//   Vbench.Allocs.Note      = N      (by Audit.Record)
// along the paths
//   Program.Run > Shop.PlaceOrders > Shop.NewOrder [> Shop.AddLine]
//   Program.Run > Returns.ReissueAll > Returns.Reissue
//   Program.Run > Audit.RecordAll > Audit.Record
// (vbench's allocations engine shows AddLine's objects under PlaceOrders,
// without NewOrder: the JIT gives AddLine no frame record, and a
// frame-pointer walk then skips its caller, docs/allocations.md's limit; the
// harness checks the counts by type, which that does not touch.)
// The three types live in this program only, so nothing else (the runtime,
// the framework) allocates one: the VBENCH line's alloc.<Type>=<count> are
// the whole process's counts, which the allocations engine must report
// exactly and allocation-sampling estimate within its sampling error. The
// sizes differ (Order 72 bytes, OrderLine 40, Note 24 on x64) so that a
// sampler biased by size shows it.
using System.Runtime.CompilerServices;
using Vbench.Common;

namespace Vbench.Allocs;

public sealed class Order
{
    public long Id, Customer, Total, Placed, Shipped, Flags;
    public OrderLine? First;
}

public sealed class OrderLine
{
    public long Sku, Quantity;
    public OrderLine? Next;
}

public sealed class Note
{
    public long Value;
}

/// <summary>Where every object goes: a ring of the latest 64 Ki, so objects escape and then die.</summary>
public static class Keep
{
    private static readonly object[] Ring = new object[1 << 16];
    private static int _next;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void It(object o) => Ring[_next++ & (Ring.Length - 1)] = o;
}

public static class Shop
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong PlaceOrders(int orders, int lines)
    {
        ulong h = Fnv.Offset;
        for (int i = 0; i < orders; i++)
            h = Fnv.Mix(h, (ulong)NewOrder(i, lines).Total);
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static Order NewOrder(int id, int lines)
    {
        var o = new Order { Id = id, Customer = id % 97 };
        Keep.It(o);
        for (int j = 0; j < lines; j++)
            AddLine(o, id + j);
        return o;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void AddLine(Order o, long sku)
    {
        var l = new OrderLine { Sku = sku, Quantity = 1 + (sku & 3), Next = o.First };
        Keep.It(l);
        o.First = l;
        o.Total += l.Quantity;
    }
}

public static class Returns
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong ReissueAll(int n)
    {
        ulong h = Fnv.Offset;
        for (int i = 0; i < n; i++)
            h = Fnv.Mix(h, (ulong)Reissue(i).Id);
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static Order Reissue(int id)
    {
        var o = new Order { Id = -id, Flags = 1 };
        Keep.It(o);
        return o;
    }
}

public static class Audit
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ulong RecordAll(int n)
    {
        ulong h = Fnv.Offset;
        for (int i = 0; i < n; i++)
            h = Fnv.Mix(h, (ulong)Record(i).Value);
        return h;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static Note Record(long v)
    {
        var n = new Note { Value = v * 3 };
        Keep.It(n);
        return n;
    }
}

public static class Program
{
    public static int Main(string[] argv)
    {
        var args = Args.Parse(argv, "allocs",
            new Option("orders", "200000", "orders placed (times --scale), each an Order and --lines OrderLines"),
            new Option("lines", "3", "OrderLines per order"),
            new Option("reissues", "50000", "Orders reissued on a second path (times --scale)"),
            new Option("notes", "300000", "Notes recorded (times --scale)"));
        int orders = args.Scaled("orders");
        int lines = args.Int("lines", 0);
        int reissues = args.Scaled("reissues");
        int notes = args.Scaled("notes");
        if ((long)orders * lines > int.MaxValue)
            args.Die("--orders times --lines is too large");

        long start = Clock.Start();
        ulong h = Run(orders, lines, reissues, notes);
        long elapsed = Clock.ElapsedNs(start);

        new VbenchLine(elapsed, Fnv.Hex(h))
            .Calls("Vbench.Allocs.Shop.NewOrder", orders)
            .Calls("Vbench.Allocs.Shop.AddLine", (long)orders * lines)
            .Calls("Vbench.Allocs.Returns.Reissue", reissues)
            .Calls("Vbench.Allocs.Audit.Record", notes)
            .Add("alloc.Vbench.Allocs.Order", (long)orders + reissues)
            .Add("alloc.Vbench.Allocs.OrderLine", (long)orders * lines)
            .Add("alloc.Vbench.Allocs.Note", notes)
            .Print();
        return 0;
    }

    /// <summary>The measured kernel: the three allocating paths, one after another.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong Run(int orders, int lines, int reissues, int notes)
    {
        ulong h = Shop.PlaceOrders(orders, lines);
        h = Fnv.Mix(h, Returns.ReissueAll(reissues));
        return Fnv.Mix(h, Audit.RecordAll(notes));
    }
}
