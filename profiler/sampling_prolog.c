// The sampling engine's prolog decoding: how big a frameless method's
// frame is, read from its code, and whether a word is a return address.
//
// The JIT keeps a frame pointer in every method but small optimised ones
// (no loop, at most 3 blocks, at most one call and that a direct one:
// ETW_EBP_FRAMED's rule), such as a forwarding overload like CoreLib's
// Thread.Join(). Such a method
// in the middle of a stack leaves RBP to its caller's frame: the chain goes
// from its callee's frame record to its caller's caller, and the caller is
// hidden. The caller's return address is the word just above the frameless
// method's own frame, whose size its prolog says (the pushes and the sub
// rsp before the body); the handler keeps the words above the leaf-most
// frame records (slot.up), and the drain reads the method's prolog.
#define _GNU_SOURCE
#include <sys/uio.h>
#include "sampling.h"

// prolog_frame is the bytes a method's prolog at code puts below its return
// address, -1 when it keeps a frame pointer (its first instruction is push
// rbp) or the prolog is none the JIT writes for a frameless method with a
// call (which must move RSP: a call needs the stack 16-aligned).
static int32_t prolog_frame(const uint8_t *c) {
	int i = 0;
	uint32_t size = 0;
	if (c[0] == 0xC5 && c[1] == 0xF8 && c[2] == 0x77) i = 3; // vzeroupper
	if (c[i] == 0x55 || (c[i] == 0x40 && c[i + 1] == 0x55)) return -1;
	for (int k = 0; k < 8; k++) { // push rax/rbx/rsi/rdi..., push r8..r15
		if (c[i] >= 0x50 && c[i] <= 0x57 && c[i] != 0x54 && c[i] != 0x55) {
			size += 8, i++;
		} else if (c[i] == 0x41 && c[i + 1] >= 0x50 && c[i + 1] <= 0x57) {
			size += 8, i += 2;
		} else {
			break;
		}
	}
	if (c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xEC && c[i + 3] < 0x80) size += c[i + 3]; // sub rsp, imm8
	else if (c[i] == 0x48 && c[i + 1] == 0x81 && c[i + 2] == 0xEC) size += (uint32_t)c[i + 3] | (uint32_t)c[i + 4] << 8 | (uint32_t)c[i + 5] << 16 | (uint32_t)c[i + 6] << 24;
	// A method that calls leaves RSP 16-aligned: its frame is 8 mod 16 bytes
	// below its return address. Anything else is no prolog read right.
	return size % 16 == 8 && size < 4096 ? (int32_t)size : -1;
}

// copy reads n bytes of the process's memory at p into out without faulting
// (0: done): code named by a cache entry may have been freed since (a
// collectible assembly unloaded), and a fault here would end the program.
static int copy(void *out, uintptr_t p, size_t n) {
	struct iovec local = {out, n}, remote = {(void *)p, n};
	return process_vm_readv(vb_cpu_self_pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

// An IP -> frame cache: what frame_at said of it.
vb_cpu_fent vb_cpu_fcache[FCACHE];
int64_t vb_cpu_frame_at_calls; // frame_at's asking the runtime (GetNativeCodeStartAddresses, GetCodeInfo4)

// frame_at is prolog_frame of the code version of f that holds ip (a return
// address into it, less one), -1 when it keeps a frame pointer or its code
// cannot be found. Not from a runtime callback (the drain inside
// ThreadAssignedToOSThread or ThreadDestroyed): GetCodeInfo4 may trigger a
// GC, refused there, and GetNativeCodeStartAddresses takes the runtime's
// code-versioning lock; the frame then stays hidden, uncached.
int32_t vb_cpu_frame_at(FunctionID f, uintptr_t ip) {
	uint32_t i = ip_hash(ip, 14) % FCACHE;
	if (vb_cpu_fcache[i].ip == ip) return vb_cpu_fcache[i].frame;
	if (vb_cpu_in_callback) return -1;
	vb_cpu_frame_at_calls++;
	int32_t frame = -1;
	int found = 0;
	uintptr_t starts[8];
	uint32_t n = 0;
	if (!FAILED(VCALL(vb_info, INFO_GetNativeCodeStartAddresses, GetNativeCodeStartAddresses_t)(vb_info, f, 0, 8, &n, starts)))
		for (uint32_t k = 0; k < n && k < 8 && frame == -1; k++) {
			COR_PRF_CODE_INFO ci[4];
			uint32_t m = 0;
			if (FAILED(VCALL(vb_info, INFO_GetCodeInfo4, GetCodeInfo4_t)(vb_info, starts[k], 4, &m, ci))) continue;
			for (uint32_t j = 0; j < m && j < 4; j++)
				if (ip >= ci[j].start && ip < ci[j].start + ci[j].size) {
					uint8_t code[32];
					if (copy(code, starts[k], sizeof code) == 0) frame = prolog_frame(code), found = 1;
					break;
				}
		}
	if (!found) return -1; // not known now: asked again next time
	vb_cpu_fcache[i].ip = ip;
	vb_cpu_fcache[i].frame = frame;
	return frame;
}

// after_call reports whether ret is a return address: it follows one of
// the calls the JIT emits: E8 rel32; FF 15 [rip+disp32]; FF D0-D7 (call
// reg, 41 before it for r8-r15); FF 50-57 disp8 and FF 90-97 disp32 (call
// [reg+disp]).
int vb_cpu_after_call(uintptr_t ret) {
	uint8_t b[8];
	if (copy(b, ret - 8, 8) != 0) return 0;
	const uint8_t *c = b + 8; // c[-k]: the byte k before ret
	if (c[-5] == 0xE8) return 1;
	if (c[-6] == 0xFF && c[-5] == 0x15) return 1;
	if (c[-2] == 0xFF && c[-1] >= 0xD0 && c[-1] <= 0xD7) return 1;
	if (c[-3] == 0xFF && c[-2] >= 0x50 && c[-2] <= 0x57) return 1;
	if (c[-2] == 0xFF && c[-1] >= 0x10 && c[-1] <= 0x17 && c[-1] != 0x14 && c[-1] != 0x15) return 1; // call [reg]
	if (c[-6] == 0xFF && c[-5] >= 0x90 && c[-5] <= 0x97) return 1;
	return 0;
}
