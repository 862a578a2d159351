//go:build !unix

package clonesetcore_test

// processCPUTime is not measured on this platform.
func processCPUTime() int64 { return 0 }
