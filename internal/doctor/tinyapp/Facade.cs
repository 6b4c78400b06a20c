// A reference-only "System.Runtime" holding just the types the C# compiler
// needs for VbenchDoctor.cs. The program compiled against it references
// System.Runtime 0.0.0.0, which every .NET runtime's System.Runtime (8, 9,
// 10, …) satisfies: one prebuilt program for every runtime vbench supports.
// Never shipped: only VbenchDoctor.dll is.
namespace System {
  public class Object { }
  public abstract class ValueType { }
  public struct Void { }
  public struct Int32 { }
  public struct Boolean { }
  public sealed class String { }
  public abstract class Enum : ValueType { }
  public abstract class Array { }
  public abstract class Delegate { }
  public abstract class MulticastDelegate : Delegate { }
  public struct IntPtr { }
  public struct RuntimeTypeHandle { }
  public struct RuntimeMethodHandle { }
  public struct RuntimeFieldHandle { }
  public interface IDisposable { }
  public abstract class Attribute { }
  public enum AttributeTargets { All = 32767 }
  public sealed class AttributeUsageAttribute : Attribute {
    public AttributeUsageAttribute(AttributeTargets t) { }
    public bool AllowMultiple { get { return false; } set { } }
    public bool Inherited { get { return false; } set { } }
  }
}
