//go:build !unix

package kubecontroller

// processCPUTime is not measured on this platform.
func processCPUTime() int64 { return 0 }
