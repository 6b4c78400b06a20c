package diagipc

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"
)

// The layout ipc-protocol.md gives: a 20-byte header (magic, total size,
// command set and id, reserved 0), then AttachProfiler's payload; the
// CLSID's first three fields little-endian, its last eight bytes as
// written; strings as UTF-16 with their NUL counted.
func TestAttachMessageLayout(t *testing.T) {
	g, err := ParseGUID("{8C2F5D8A-6C1E-4B7A-9A57-3F0E2B1D7C41}")
	if err != nil {
		t.Fatal(err)
	}
	wantG := []byte{0x8A, 0x5D, 0x2F, 0x8C, 0x1E, 0x6C, 0x7A, 0x4B, 0x9A, 0x57, 0x3F, 0x0E, 0x2B, 0x1D, 0x7C, 0x41}
	if !bytes.Equal(g[:], wantG) {
		t.Fatalf("GUID bytes % x, want % x", g[:], wantG)
	}
	msg, err := message(setProfiler, cmdAttachProfiler, AttachPayload(1500*time.Millisecond, g, "/l.so", []byte("ab")))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte("DOTNET_IPC_V1\x00"), 0, 0, 3, 1, 0, 0)
	want = binary.LittleEndian.AppendUint32(want, 1500)
	want = append(want, wantG...)
	want = append(want, 6, 0, 0, 0, '/', 0, 'l', 0, '.', 0, 's', 0, 'o', 0, 0, 0)
	want = append(want, 2, 0, 0, 0, 'a', 'b')
	binary.LittleEndian.PutUint16(want[14:], uint16(len(want)))
	if !bytes.Equal(msg, want) {
		t.Fatalf("message\n% x\nwant\n% x", msg, want)
	}
	if _, err := ParseGUID("{8C2F5D8A-6C1E}"); err == nil {
		t.Error("a short GUID was accepted")
	}
}
