package controlplane

import "testing"

// StartForTest starts a control plane for t (Start with t's context) and
// registers its Stop with t.Cleanup. The logs go to Options.LogDir, by
// default a directory of t.TempDir() (so they outlive the control plane until
// the test ends). When the start fails, or the test has failed by the time
// the cleanup runs, the tail of every log is written with t.Log. A start
// failure ends the test with t.Fatal.
func StartForTest(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	cp, err := Start(t.Context(), opts)
	if err != nil {
		t.Log(logTails(opts.LogDir, 40))
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(cp.LogTails(40))
		}
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	return cp
}
