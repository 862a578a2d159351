package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processesMentioning lists the processes whose command line contains s
// (pid: command line), read from /proc.
func processesMentioning(s string) map[int]string {
	found := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if line := string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})); strings.Contains(line, s) {
			found[pid] = line
		}
	}
	return found
}

// waitNoProcess waits up to d for no process to mention s; the processes
// still there are returned.
func waitNoProcess(s string, d time.Duration) map[int]string {
	deadline := time.Now().Add(d)
	for {
		left := processesMentioning(s)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// componentCount is how many processes of a full control plane mention its
// directory.
const componentCount = 5

func TestStopLeavesNoProcess(t *testing.T) {
	start := time.Now()
	cp, err := Start(t.Context(), Options{Nodes: 1, LogDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Since(start)
	dir := cp.Dir()
	sleeper, err := cp.StartProcess("sleeper", "/bin/sleep", "300")
	if err != nil {
		cp.Stop()
		t.Fatal(err)
	}
	if n := len(processesMentioning(dir)); n != componentCount {
		cp.Stop()
		t.Fatalf("%d processes mention %s, want the %d components", n, dir, componentCount)
	}
	start = time.Now()
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("control plane started in %s, stopped in %s", started.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	if left := processesMentioning(dir); len(left) > 0 {
		t.Errorf("processes left after Stop: %v", left)
	}
	if !sleeper.Exited() || syscall.Kill(sleeper.Pid(), 0) == nil {
		t.Errorf("the process of StartProcess runs on after Stop")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left after Stop (%v)", dir, err)
	}
}

func TestStartProcess(t *testing.T) {
	cp := shared(t)
	p, err := cp.StartProcess("echo-kubeconfig", "/bin/sh", "-c", `echo "KUBECONFIG=$KUBECONFIG"; exec sleep 300`)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.LogTail(5), "KUBECONFIG="+cp.KubeconfigPath()) {
		if time.Now().After(deadline) {
			t.Fatalf("log of the process: %s", p.LogTail(5))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p.Exited() {
		t.Fatal("exited early")
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Wait after Kill = %v, want the SIGKILL", err)
	}
	// Stop: SIGTERM is enough for sleep.
	p, err = cp.StartProcess("sleeper", "/bin/sleep", "300")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > DefaultStopGrace/2 || !strings.Contains(fmt.Sprint(p.Wait()), "terminated") {
		t.Errorf("Stop took %s and the process ended with %v: want SIGTERM to end it", d, p.Wait())
	}
}

// hygieneChildEnv marks the test binary started by
// TestKilledTestBinaryLeavesNoProcess.
const hygieneChildEnv = "CONTROLPLANE_HYGIENE_CHILD"

const childDirMarker = "CONTROLPLANE_DIR="

// hygieneChild is the test binary started by
// TestKilledTestBinaryLeavesNoProcess (TestMain runs it instead of the
// tests when hygieneChildEnv is set): it starts a control plane, prints its
// directory and waits to be killed.
func hygieneChild() {
	cp, err := Start(context.Background(), Options{Nodes: 1})
	if err != nil {
		fmt.Println("the hygiene child could not start a control plane:", err)
		os.Exit(1)
	}
	fmt.Printf("%s%s\n", childDirMarker, cp.Dir())
	select {} // until killed
}

// TestKilledTestBinaryLeavesNoProcess starts a test binary that starts a
// control plane, kills it with SIGKILL (nothing of it runs after that: no
// cleanup, no Stop) and checks that the kernel took every component with
// it.
func TestKilledTestBinaryLeavesNoProcess(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "child.log")
	child, err := startProcess("hygiene-child", logPath, []string{hygieneChildEnv + "=1"}, os.Args[0], "-test.run=^$", "-test.timeout=5m")
	if err != nil {
		t.Fatal(err)
	}
	defer child.Kill()
	var dir string
	deadline := time.Now().Add(3 * time.Minute)
	for dir == "" {
		data, _ := os.ReadFile(logPath)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, childDirMarker) {
				dir = strings.TrimPrefix(line, childDirMarker)
			}
		}
		if child.Exited() || time.Now().After(deadline) {
			t.Fatalf("the child printed no directory:\n%s", fileTail(logPath, 40))
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer os.RemoveAll(dir) // the child never got to remove it
	if n := len(processesMentioning(dir)); n != componentCount {
		t.Fatalf("%d processes mention %s, want the child's %d components", n, dir, componentCount)
	}
	start := time.Now()
	if err := child.Kill(); err != nil {
		t.Fatal(err)
	}
	left := waitNoProcess(dir, 5*time.Second)
	if len(left) > 0 {
		for pid := range left {
			syscall.Kill(pid, syscall.SIGKILL) // started by this test's child
		}
		t.Fatalf("processes of the killed test binary's control plane still running after 5s: %v", left)
	}
	t.Logf("every component gone %s after the SIGKILL of the test binary", time.Since(start).Round(time.Millisecond))
}

func TestProcessUsage(t *testing.T) {
	cp := shared(t)
	u, err := cp.Process(APIServer).Usage()
	if err != nil {
		t.Fatal(err)
	}
	if u.CPU <= 0 || u.PeakRSS < 50<<20 {
		t.Errorf("kube-apiserver usage %+v: want some CPU time and more than 50 MiB", u)
	}
	busy, err := cp.StartProcess("busy", "/bin/sh", "-c", `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo "counted to $i"; exec sleep 300`)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(busy.LogTail(3), "counted to 300000") {
		if time.Now().After(deadline) {
			t.Fatal("the busy loop did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	running, err := busy.Usage()
	if err != nil {
		t.Fatal(err)
	}
	busy.Kill()
	exited, err := busy.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if running.CPU < 50*time.Millisecond || exited.CPU < running.CPU || exited.PeakRSS <= 0 {
		t.Errorf("usage of a busy loop: running %+v, exited %+v", running, exited)
	}
	t.Logf("kube-apiserver %s CPU, %d MiB peak; busy loop %s CPU", u.CPU, u.PeakRSS>>20, exited.CPU)
}

func TestFreePorts(t *testing.T) {
	ports, err := freePorts(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	limit := ephemeralPortsStart()
	for _, p := range ports {
		if seen[p] || p >= limit {
			t.Errorf("ports %v: want 20 distinct ports below %d", ports, limit)
			break
		}
		seen[p] = true
	}
}
