package controlplane

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// DefaultStopGrace is how long Process.Stop waits after SIGTERM before it
// sends SIGKILL.
const DefaultStopGrace = 5 * time.Second

// spawner starts every process of this package from one goroutine locked to
// its OS thread for the life of the program. A child's Pdeathsig fires when
// the thread that forked it exits, not the process: a goroutine that
// forked from an ordinary thread could see that thread retired by the Go
// runtime and its children killed for nothing. The locked goroutine never
// returns, so its thread lives exactly as long as the program, and the
// children get SIGKILL when the program dies, however it dies (a test
// timeout's panic, SIGKILL, os.Exit).
var spawner struct {
	once     sync.Once
	requests chan spawnRequest
}

type spawnRequest struct {
	cmd    *exec.Cmd
	result chan error
}

// spawn starts cmd from the spawner thread.
func spawn(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.requests = make(chan spawnRequest)
		go spawnLoop(spawner.requests)
	})
	r := spawnRequest{cmd: cmd, result: make(chan error, 1)}
	spawner.requests <- r
	return <-r.result
}

// spawnLoop runs forever on its locked thread (see spawner).
func spawnLoop(requests <-chan spawnRequest) {
	runtime.LockOSThread() // never unlocked: the thread must outlive every child
	for r := range requests {
		r.result <- r.cmd.Start()
	}
}

// Process is a process started by this package: in a process group of its
// own, killed by the kernel when the program that started it dies, its
// standard output and error appended to a log file.
type Process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	mu      sync.Mutex
	exited  bool          // the process has exited (it may not be reaped yet)
	done    chan struct{} // closed when the process has been waited for
	err     error         // the exit status, set before done is closed
}

// startProcess starts path with args as name, appending its output to
// logPath, with env added to this program's environment.
func startProcess(name, logPath string, env []string, path string, args ...string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("controlplane: %s: log file: %w", name, err)
	}
	fmt.Fprintf(logFile, "=== controlplane: %s starting at %s: %s %s\n", name, time.Now().Format(time.RFC3339Nano), path, strings.Join(args, " "))
	cmd := exec.Command(path, args...)
	// The test's own KUBECONFIG never reaches the program: it gets the
	// one env names, or none.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "KUBECONFIG=") })
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := spawn(cmd); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("controlplane: start %s: %w", name, err)
	}
	p := &Process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		// The process is waited for without being reaped first: until it is
		// reaped its pid, which is also its group id, cannot be reused, so
		// the SIGKILL for what it left in its group, and any signal sent
		// while exited is false, reach only processes started here.
		waitExit(cmd.Process.Pid)
		p.mu.Lock()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		p.exited = true
		p.mu.Unlock()
		p.err = cmd.Wait()
		fmt.Fprintf(logFile, "=== controlplane: %s exited at %s: %v\n", name, time.Now().Format(time.RFC3339Nano), exitText(p.err))
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// waitExit blocks until the process pid has exited, leaving it waitable
// (waitid with WNOWAIT).
func waitExit(pid int) {
	const (
		pPID    = 1         // P_PID
		wExited = 0x4       // WEXITED
		wNoWait = 0x1000000 // WNOWAIT
	)
	var siginfo [128]byte
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&siginfo[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			return
		}
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// Name is the name the process was started with.
func (p *Process) Name() string { return p.name }

// Pid is the process id (also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogPath is the file its standard output and error are appended to.
func (p *Process) LogPath() string { return p.logPath }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits for the process to exit and returns its exit status (nil for
// exit status 0, an *exec.ExitError otherwise).
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Kill sends SIGKILL to the process group and waits for the process.
func (p *Process) Kill() error {
	p.signal(syscall.SIGKILL)
	<-p.done
	return nil
}

// Stop sends SIGTERM to the process group, waits up to DefaultStopGrace,
// then sends SIGKILL and waits. It returns nil when the process is gone,
// however it exited.
func (p *Process) Stop() error {
	return p.StopWithin(DefaultStopGrace)
}

// StopWithin is Stop with grace instead of DefaultStopGrace.
func (p *Process) StopWithin(grace time.Duration) error {
	if p.Exited() {
		return nil
	}
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.signal(syscall.SIGKILL)
		<-p.done
	}
	return nil
}

// signal sends sig to the process group, unless the process has exited.
func (p *Process) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.exited {
		syscall.Kill(-p.cmd.Process.Pid, sig)
	}
}

// LogTail returns the last lines of the process's log.
func (p *Process) LogTail(lines int) string {
	return fileTail(p.logPath, lines)
}

// fileTail returns the last lines of the file at path (at most 64 KiB).
func fileTail(path string, lines int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	const max = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		f.Seek(fi.Size()-max, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	return tail(string(data), lines)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}
