// Run under `vbench profile -- dotnet test`: the test host's profile must
// hold CountsSteps with one call and Work.Step with its exact 1000.
using Xunit;

namespace XunitTree
{
    public static class Work
    {
        public static int Step(int i) => i % 7 == 0 ? i / 7 : i + 1;
    }

    public class Tests
    {
        [Fact]
        public void CountsSteps()
        {
            int sum = 0;
            for (int i = 0; i < 1000; i++) sum += Work.Step(i);
            Assert.Equal(439439, sum);
        }
    }
}
