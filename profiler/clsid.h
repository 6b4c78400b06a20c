// The vbench profiler's COM class ID. It must match attach.CLSID
// ({8C2F5D8A-6C1E-4B7A-9A57-3F0E2B1D7C41}); TestCLSIDMatchesAttach checks.
#ifndef VB_CLSID_H
#define VB_CLSID_H
#define VB_CLSID_INIT {0x8C2F5D8A, 0x6C1E, 0x4B7A, {0x9A, 0x57, 0x3F, 0x0E, 0x2B, 0x1D, 0x7C, 0x41}}
#endif
