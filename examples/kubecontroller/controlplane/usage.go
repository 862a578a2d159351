package controlplane

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Usage is the resources a process has used so far.
type Usage struct {
	// CPU is the user and system CPU time.
	CPU time.Duration
	// PeakRSS is the largest resident set size, in bytes.
	PeakRSS int64
}

// clockTick is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100
// on Linux whatever the kernel's HZ).
const clockTick = 10 * time.Millisecond

// Usage returns the CPU time and peak memory of the process: read from
// /proc while it runs, from its exit status once it has exited (its
// children not included either way).
func (p *Process) Usage() (Usage, error) {
	if p.Exited() {
		ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			return Usage{}, fmt.Errorf("controlplane: %s: no resource usage", p.name)
		}
		return Usage{
			CPU:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
			PeakRSS: ru.Maxrss * 1024,
		}, nil
	}
	return procUsage(p.Pid())
}

// procUsage reads the usage of a running process from /proc.
func procUsage(pid int) (Usage, error) {
	var u Usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, fmt.Errorf("controlplane: usage of %d: %w", pid, err)
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// fields are counted after its closing parenthesis; utime and stime are
	// fields 14 and 15.
	rest := string(stat)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return u, fmt.Errorf("controlplane: usage of %d: short /proc/%d/stat", pid, pid)
	}
	for _, s := range f[11:13] {
		ticks, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return u, fmt.Errorf("controlplane: usage of %d: %w", pid, err)
		}
		u.CPU += time.Duration(ticks) * clockTick
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, fmt.Errorf("controlplane: usage of %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return u, fmt.Errorf("controlplane: usage of %d: VmHWM: %w", pid, err)
			}
			u.PeakRSS = kb * 1024
		}
	}
	return u, nil
}
