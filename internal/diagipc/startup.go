package diagipc

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"
)

const (
	cmdStartupProfiler = 0x02 // Profiler set
	cmdSetEnvironment  = 0x03 // Process set: SetEnvironmentVariable
)

// Advertise is what a runtime sends first on a connection it makes to a
// diagnostic port (DOTNET_DiagnosticPorts=PATH[,suspend]).
type Advertise struct {
	Cookie GUID
	PID    uint64
}

// ReadAdvertise reads the 34-byte advertise message: "ADVR_V1\0", the
// runtime's cookie, its pid, two unused bytes.
func ReadAdvertise(conn net.Conn, wait time.Duration) (Advertise, error) {
	var b [34]byte
	conn.SetReadDeadline(time.Now().Add(wait))
	defer conn.SetReadDeadline(time.Time{})
	if _, err := io.ReadFull(conn, b[:]); err != nil {
		return Advertise{}, fmt.Errorf("reading the runtime's advertise message: %w", err)
	}
	if string(b[:8]) != "ADVR_V1\x00" {
		return Advertise{}, fmt.Errorf("the connection did not start with a runtime's advertise message (magic %q)", b[:8])
	}
	var a Advertise
	copy(a.Cookie[:], b[8:24])
	a.PID = binary.LittleEndian.Uint64(b[24:32])
	return a, nil
}

// SetEnvironmentVariable sets name=value in the runtime's process (.NET 6+).
func SetEnvironmentVariable(conn net.Conn, name, value string) error {
	msg, err := message(setProcess, cmdSetEnvironment, appendString(appendString(nil, name), value))
	if err != nil {
		return err
	}
	return exchange(conn, msg, 10*time.Second, "SetEnvironmentVariable "+name)
}

// StartupProfiler names the profiler a runtime suspended at a diagnostic
// port loads as it starts (.NET 7+), as CORECLR_PROFILER* would.
func StartupProfiler(conn net.Conn, clsid GUID, path string) error {
	msg, err := message(setProfiler, cmdStartupProfiler, appendString(append([]byte(nil), clsid[:]...), path))
	if err != nil {
		return err
	}
	return exchange(conn, msg, 10*time.Second, "StartupProfiler")
}
