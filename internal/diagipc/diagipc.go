// Package diagipc speaks the .NET runtime's diagnostics IPC protocol
// (dotnet/diagnostics, documentation/design-docs/ipc-protocol.md) over the
// Unix socket a .NET process listens on: the few commands vbench sends.
// Hand-written: no Go client of the protocol is among the project's
// modules, and the commands used here are a header and a flat payload.
package diagipc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
	"unicode/utf16"
)

// Command sets and ids (ipc-protocol.md, "Commands").
const (
	setProfiler = 0x03
	setProcess  = 0x04
	setServer   = 0xFF

	cmdAttachProfiler = 0x01
	cmdResumeRuntime  = 0x01
	serverOK          = 0x00
	serverError       = 0xFF
)

var magic = []byte("DOTNET_IPC_V1\x00")

const headerSize = 20 // magic[14], uint16 size, command set, command id, uint16 reserved

// HRESULTs the runtime answers an AttachProfiler with (corerror.h), and the
// diagnostics server's own.
const (
	ProfilerAlreadyActive = 0x8013136A // CORPROF_E_PROFILER_ALREADY_ACTIVE
	ProfilerNotAttachable = 0x8013136B // CORPROF_E_PROFILER_NOT_ATTACHABLE
	UnknownCommand        = 0x80131385 // CORDIAGIPC_E_UNKNOWN_COMMAND
	InvalidArg            = 0x80070057 // E_INVALIDARG: StartupProfiler before the runtime paused at start-up
)

// HRESULTError is a failure the runtime answered with.
type HRESULTError struct {
	Command string
	HR      uint32
	Server  bool // the diagnostics server's error message, not the command's answer
}

func (e *HRESULTError) Error() string {
	return fmt.Sprintf("%s failed: HRESULT 0x%08X", e.Command, e.HR)
}

// message is a header and its payload.
func message(set, id byte, payload []byte) ([]byte, error) {
	n := headerSize + len(payload)
	if n > 0xFFFF {
		return nil, fmt.Errorf("diagnostics message of %d bytes: the protocol's size field holds 65535 at most", n)
	}
	b := make([]byte, 0, n)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint16(b, uint16(n))
	b = append(b, set, id, 0, 0)
	return append(b, payload...), nil
}

// GUID is a CLSID as the protocol sends it: uint32, two uint16, 8 bytes,
// the numbers little-endian.
type GUID [16]byte

// ParseGUID reads "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}".
func ParseGUID(s string) (GUID, error) {
	var g GUID
	h := strings.ReplaceAll(strings.Trim(s, "{}"), "-", "")
	if len(h) != 32 {
		return g, fmt.Errorf("%q is not a GUID", s)
	}
	var raw [16]byte
	for i := range raw {
		var v byte
		if _, err := fmt.Sscanf(h[2*i:2*i+2], "%02x", &v); err != nil {
			return g, fmt.Errorf("%q is not a GUID", s)
		}
		raw[i] = v
	}
	// Data1..3 are numbers: little-endian on the wire; Data4 is bytes.
	g[0], g[1], g[2], g[3] = raw[3], raw[2], raw[1], raw[0]
	g[4], g[5] = raw[5], raw[4]
	g[6], g[7] = raw[7], raw[6]
	copy(g[8:], raw[8:])
	return g, nil
}

// appendString appends a protocol string: uint32 length in UTF-16 units,
// the terminating NUL included, then the units.
func appendString(b []byte, s string) []byte {
	u := append(utf16.Encode([]rune(s)), 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(u)))
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

// AttachPayload is AttachProfiler's payload: attach timeout (ms), the
// profiler's CLSID, its path, the client data.
func AttachPayload(timeout time.Duration, clsid GUID, path string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(timeout.Milliseconds()))
	b = append(b, clsid[:]...)
	b = appendString(b, path)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// AttachProfiler asks the runtime behind conn to load the profiler at path
// with clientData, waiting for InitializeForAttach to return (the timeout
// is the runtime's; the connection waits a little longer).
func AttachProfiler(conn net.Conn, timeout time.Duration, clsid GUID, path string, clientData []byte) error {
	msg, err := message(setProfiler, cmdAttachProfiler, AttachPayload(timeout, clsid, path, clientData))
	if err != nil {
		return err
	}
	return exchange(conn, msg, timeout+10*time.Second, "AttachProfiler")
}

// ResumeRuntime lets a runtime suspended at a diagnostic port go on.
func ResumeRuntime(conn net.Conn) error {
	msg, _ := message(setProcess, cmdResumeRuntime, nil)
	return exchange(conn, msg, 10*time.Second, "ResumeRuntime")
}

// exchange sends msg and reads the answer: OK (with an HRESULT payload for
// commands that return one), or the server's error.
func exchange(conn net.Conn, msg []byte, wait time.Duration, what string) error {
	conn.SetDeadline(time.Now().Add(wait))
	if _, err := conn.Write(msg); err != nil {
		return fmt.Errorf("%s: sending: %w", what, err)
	}
	var h [headerSize]byte
	if _, err := io.ReadFull(conn, h[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: the runtime closed the connection without an answer", what)
		}
		return fmt.Errorf("%s: reading the answer: %w", what, err)
	}
	if string(h[:14]) != string(magic) {
		return fmt.Errorf("%s: the answer is not a diagnostics IPC message (magic %q)", what, h[:14])
	}
	size := int(binary.LittleEndian.Uint16(h[14:]))
	if size < headerSize {
		return fmt.Errorf("%s: the answer's size %d is less than its header", what, size)
	}
	payload := make([]byte, size-headerSize)
	if _, err := io.ReadFull(conn, payload); err != nil {
		return fmt.Errorf("%s: reading the answer: %w", what, err)
	}
	set, id := h[16], h[17]
	switch {
	case set == setServer && id == serverError && len(payload) >= 4:
		return &HRESULTError{Command: what, HR: binary.LittleEndian.Uint32(payload), Server: true}
	case set == setServer && id == serverOK:
		if len(payload) >= 4 {
			if hr := binary.LittleEndian.Uint32(payload); hr&0x80000000 != 0 {
				return &HRESULTError{Command: what, HR: hr}
			}
		}
		return nil
	}
	return fmt.Errorf("%s: unexpected answer (command set 0x%02x, id 0x%02x)", what, set, id)
}
