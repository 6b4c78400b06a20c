package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed Generated.cs must be what gen writes with its defaults, so
// that nobody edits it by hand and the regeneration command stays true.
func TestGeneratedIsUpToDate(t *testing.T) {
	want, err := os.ReadFile("../Generated.cs")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	Generate(&got, defaultMethods, defaultStructs)
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatal("benchmarks/jitstorm/Generated.cs is stale: run `scripts/go generate ./benchmarks/jitstorm/gen`")
	}
}

func TestGenerateIsDeterministicAndComplete(t *testing.T) {
	var a, b bytes.Buffer
	Generate(&a, 7, 3)
	Generate(&b, 7, 3)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two runs differ")
	}
	for _, s := range []string{"M0000(", "M0006(", "S0002 ", "Generic.Visit<S0002>(x)", "MethodCount = 7;", "StructCount = 3;", "BatchSize = 100;",
		"[MethodImpl(NoInlining)]\n    public static ulong CallMethods(", "[MethodImpl(NoInlining)]\n    public static ulong CallGenerics(",
		"private static ulong MethodBatch000(", "private static ulong GenericBatch000("} {
		if !bytes.Contains(a.Bytes(), []byte(s)) {
			t.Errorf("output lacks %q", s)
		}
	}
	if bytes.Contains(a.Bytes(), []byte("M0007(")) {
		t.Error("output has an 8th method")
	}
}
