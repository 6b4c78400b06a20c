// Signature blobs (ECMA-335 II.23.2): compressed integers, skipping and
// copying types. See ilsig.h. Cold code, like il.c: it runs in the JIT
// callbacks, once per instrumented method.
#include <stdlib.h>
#include <string.h>
#include "ilsig.h"

const uint8_t *sig_uncompress(const uint8_t *p, const uint8_t *end, uint32_t *v) {
	if (p >= end) return 0;
	if ((p[0] & 0x80) == 0) {
		*v = p[0];
		return p + 1;
	}
	if ((p[0] & 0xC0) == 0x80) {
		if (end - p < 2) return 0;
		*v = (uint32_t)(p[0] & 0x3F) << 8 | p[1];
		return p + 2;
	}
	if ((p[0] & 0xE0) == 0xC0) {
		if (end - p < 4) return 0;
		*v = (uint32_t)(p[0] & 0x1F) << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		return p + 4;
	}
	return 0;
}

int sig_compress(uint32_t v, uint8_t *o) {
	if (v < 0x80) {
		o[0] = (uint8_t)v;
		return 1;
	}
	if (v < 0x4000) {
		o[0] = (uint8_t)(0x80 | v >> 8), o[1] = (uint8_t)v;
		return 2;
	}
	if (v < 0x20000000) {
		o[0] = (uint8_t)(0xC0 | v >> 24), o[1] = (uint8_t)(v >> 16), o[2] = (uint8_t)(v >> 8), o[3] = (uint8_t)v;
		return 4;
	}
	return 0;
}

static const uint8_t *skip_method_sig(const uint8_t *p, const uint8_t *end, int depth);

static const uint8_t *skip_type(const uint8_t *p, const uint8_t *end, int depth) {
	uint32_t v;
	if (depth > 64) return 0;
	for (;;) {
		if (!p || p >= end) return 0;
		uint8_t b = *p++;
		switch (b) {
		case 0x1F: // CMOD_REQD
		case 0x20: // CMOD_OPT
			p = sig_uncompress(p, end, &v);
			continue;
		case 0x45: // PINNED
		case 0x0F: // PTR
		case 0x10: // BYREF
		case 0x1D: // SZARRAY
			continue;
		case 0x01: case 0x02: case 0x03: case 0x04: case 0x05: case 0x06: case 0x07:
		case 0x08: case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x0E:
		case 0x16: case 0x18: case 0x19: case 0x1C: // primitives, string, typedref, object
			return p;
		case 0x11: // VALUETYPE
		case 0x12: // CLASS
		case 0x13: // VAR
		case 0x1E: // MVAR
			return sig_uncompress(p, end, &v);
		case 0x14: { // ARRAY: type rank nsizes sizes nlo los
			uint32_t n;
			p = skip_type(p, end, depth + 1);
			if (!p || !(p = sig_uncompress(p, end, &v)) || !(p = sig_uncompress(p, end, &n))) return 0;
			for (uint32_t i = 0; i < n && p; i++) p = sig_uncompress(p, end, &v);
			if (!p || !(p = sig_uncompress(p, end, &n))) return 0;
			for (uint32_t i = 0; i < n && p; i++) p = sig_uncompress(p, end, &v);
			return p;
		}
		case 0x15: { // GENERICINST (CLASS|VALUETYPE) token count types
			uint32_t n;
			if (p >= end) return 0;
			p++;
			if (!(p = sig_uncompress(p, end, &v)) || !(p = sig_uncompress(p, end, &n))) return 0;
			for (uint32_t i = 0; i < n && p; i++) p = skip_type(p, end, depth + 1);
			return p;
		}
		case 0x1B: // FNPTR
			return skip_method_sig(p, end, depth + 1);
		default:
			return 0;
		}
	}
}

static const uint8_t *skip_method_sig(const uint8_t *p, const uint8_t *end, int depth) {
	uint32_t v, n;
	if (p >= end) return 0;
	uint8_t cc = *p++;
	if (cc & 0x10 && !(p = sig_uncompress(p, end, &v))) return 0; // generic parameter count
	if (!(p = sig_uncompress(p, end, &n))) return 0;
	p = skip_type(p, end, depth); // return type
	for (uint32_t i = 0; i < n && p; i++) {
		if (p < end && *p == 0x41) p++; // SENTINEL
		p = skip_type(p, end, depth);
	}
	return p;
}

const uint8_t *sig_skip_type(const uint8_t *p, const uint8_t *end) { return skip_type(p, end, 0); }

void vb_bytes_put(vb_bytes *b, const void *p, uint32_t n) {
	if (b->oom) return;
	if (b->n + n > b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 64;
		while (cap < b->n + n) cap *= 2;
		uint8_t *nb = realloc(b->b, cap);
		if (!nb) {
			b->oom = 1;
			return;
		}
		b->b = nb, b->cap = cap;
	}
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static const uint8_t *copy_method_sig(const uint8_t *p, const uint8_t *end, const vb_span *ca, uint32_t nca,
	const vb_span *ma, uint32_t nma, vb_bytes *out, int depth);

// copy_uncompress reads one compressed integer or token and appends it verbatim.
static const uint8_t *copy_uncompress(const uint8_t *p, const uint8_t *end, vb_bytes *out, uint32_t *v) {
	const uint8_t *q = sig_uncompress(p, end, v);
	if (q) vb_bytes_put(out, p, (uint32_t)(q - p));
	return q;
}

static const uint8_t *copy_type(const uint8_t *p, const uint8_t *end, const vb_span *ca, uint32_t nca,
	const vb_span *ma, uint32_t nma, vb_bytes *out, int depth) {
	uint32_t v;
	if (depth > 64) return 0;
	for (;;) {
		if (!p || p >= end) return 0;
		uint8_t b = *p++;
		if ((b == 0x13 && ca) || (b == 0x1E && ma)) { // VAR / MVAR with an instantiation
			const vb_span *args = b == 0x13 ? ca : ma;
			uint32_t n = b == 0x13 ? nca : nma;
			if (!(p = sig_uncompress(p, end, &v)) || v >= n) return 0;
			vb_bytes_put(out, args[v].p, args[v].n);
			return p;
		}
		vb_bytes_put(out, &b, 1);
		switch (b) {
		case 0x1F: case 0x20: // CMOD_REQD, CMOD_OPT: token, then more
			p = copy_uncompress(p, end, out, &v);
			continue;
		case 0x45: case 0x0F: case 0x10: case 0x1D: // PINNED, PTR, BYREF, SZARRAY: a type follows
			continue;
		case 0x01: case 0x02: case 0x03: case 0x04: case 0x05: case 0x06: case 0x07:
		case 0x08: case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x0E:
		case 0x16: case 0x18: case 0x19: case 0x1C:
			return p;
		case 0x11: case 0x12: case 0x13: case 0x1E: // VALUETYPE, CLASS: token; VAR, MVAR: number
			return copy_uncompress(p, end, out, &v);
		case 0x14: { // ARRAY
			uint32_t n;
			if (!(p = copy_type(p, end, ca, nca, ma, nma, out, depth + 1)) || !(p = copy_uncompress(p, end, out, &v)) ||
				!(p = copy_uncompress(p, end, out, &n)))
				return 0;
			for (uint32_t i = 0; i < n && p; i++) p = copy_uncompress(p, end, out, &v);
			if (!p || !(p = copy_uncompress(p, end, out, &n))) return 0;
			for (uint32_t i = 0; i < n && p; i++) p = copy_uncompress(p, end, out, &v);
			return p;
		}
		case 0x15: { // GENERICINST
			uint32_t n;
			if (p >= end) return 0;
			vb_bytes_put(out, p, 1);
			p++;
			if (!(p = copy_uncompress(p, end, out, &v)) || !(p = copy_uncompress(p, end, out, &n))) return 0;
			for (uint32_t i = 0; i < n && p; i++) p = copy_type(p, end, ca, nca, ma, nma, out, depth + 1);
			return p;
		}
		case 0x1B: // FNPTR
			return copy_method_sig(p, end, ca, nca, ma, nma, out, depth + 1);
		default:
			return 0;
		}
	}
}

static const uint8_t *copy_method_sig(const uint8_t *p, const uint8_t *end, const vb_span *ca, uint32_t nca,
	const vb_span *ma, uint32_t nma, vb_bytes *out, int depth) {
	uint32_t v, n;
	if (p >= end) return 0;
	uint8_t cc = *p++;
	vb_bytes_put(out, &cc, 1);
	if (cc & 0x10 && !(p = copy_uncompress(p, end, out, &v))) return 0;
	if (!(p = copy_uncompress(p, end, out, &n))) return 0;
	p = copy_type(p, end, ca, nca, ma, nma, out, depth);
	for (uint32_t i = 0; i < n && p; i++) {
		if (p < end && *p == 0x41) vb_bytes_put(out, p++, 1); // SENTINEL
		p = copy_type(p, end, ca, nca, ma, nma, out, depth);
	}
	return p;
}

const uint8_t *sig_copy_type(const uint8_t *p, const uint8_t *end, const vb_span *cargs, uint32_t ncargs,
	const vb_span *margs, uint32_t nmargs, vb_bytes *out) {
	return copy_type(p, end, cargs, ncargs, margs, nmargs, out, 0);
}

int sig_generic_args(const uint8_t *p, const uint8_t *end, vb_span *args, uint32_t max, uint32_t *n) {
	uint32_t k;
	if (!(p = sig_uncompress(p, end, &k)) || k > max) return 0;
	for (uint32_t i = 0; i < k; i++) {
		const uint8_t *q = sig_skip_type(p, end);
		if (!q) return 0;
		args[i].p = p;
		args[i].n = (uint32_t)(q - p);
		p = q;
	}
	*n = k;
	return 1;
}
