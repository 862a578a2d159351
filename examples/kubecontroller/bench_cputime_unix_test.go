//go:build unix

package kubecontroller

import "syscall"

// processCPUTime returns the user+system CPU time of the process in
// nanoseconds: BenchmarkReconcile reports it per operation because wall
// time is noisy on a shared machine.
func processCPUTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
