// Command fakeprof builds (with -buildmode=c-shared) a library that passes
// attach.Check — an x86-64 ELF shared object exporting DllGetClassObject —
// but declines to create a profiler. Harness tests use it for profiled modes
// with fakework, which writes the profile itself; it never loads into a CLR.
package main

import "C"

// DllGetClassObject returns CLASS_E_CLASSNOTAVAILABLE for every class.
//
//export DllGetClassObject
func DllGetClassObject() int32 { return -2147221231 }

func main() {}
