// Metadata signature blobs (ECMA-335 II.23.2): reading, skipping and
// copying types, with generic arguments substituted. The instrumentation
// engine builds its calli and locals signatures with these (instr.c); the
// byte buffer is shared with the IL emitter (il.c). Pure C on byte buffers.
#ifndef VB_ILSIG_H
#define VB_ILSIG_H

#include <stdint.h>

// sig_uncompress reads a compressed unsigned integer; sig_skip_type steps
// over one Type (with its custom modifiers). Both return NULL on a malformed or truncated blob.
const uint8_t *sig_uncompress(const uint8_t *p, const uint8_t *end, uint32_t *v);
const uint8_t *sig_skip_type(const uint8_t *p, const uint8_t *end);
int sig_compress(uint32_t v, uint8_t *out); // returns bytes written (1, 2 or 4), 0 if too large

// A byte range of a signature blob.
typedef struct {
	const uint8_t *p;
	uint32_t n;
} vb_span;

// A growable byte buffer (oom set on allocation failure): signatures here,
// the rewritten method body in il.c.
typedef struct {
	uint8_t *b;
	uint32_t n, cap;
	int oom;
} vb_bytes;
void vb_bytes_put(vb_bytes *b, const void *p, uint32_t n);

// sig_copy_type appends one Type from p to out, replacing VAR i by cargs[i]
// and MVAR i by margs[i] (a generic argument list as the call site saw it;
// without one, VAR/MVAR are copied as they are). Returns the position after
// the type, NULL on a malformed blob or an argument index out of range.
const uint8_t *sig_copy_type(const uint8_t *p, const uint8_t *end, const vb_span *cargs, uint32_t ncargs,
	const vb_span *margs, uint32_t nmargs, vb_bytes *out);

// sig_generic_args splits a generic argument list (after GENERICINST's type
// and count, or a MethodSpec blob's 0x0A and count) into its types.
int sig_generic_args(const uint8_t *p, const uint8_t *end, vb_span *args, uint32_t max, uint32_t *n);

#endif
