package controlplane

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMajorMinor(t *testing.T) {
	for _, tc := range []struct {
		version, major, minor string
		ok                    bool
	}{
		{"v1.37.2", "1", "37", true},
		{"v1.4.0-rc.1", "1", "4", true},
		{"1.37.2", "", "", false},
		{"v1.37", "", "", false},
		{"v1.x.2", "", "", false},
		{"v.37.2", "", "", false},
	} {
		major, minor, ok := majorMinor(tc.version)
		if major != tc.major || minor != tc.minor || ok != tc.ok {
			t.Errorf("majorMinor(%q) = %q, %q, %v; want %q, %q, %v", tc.version, major, minor, ok, tc.major, tc.minor, tc.ok)
		}
	}
}

func TestRequiredVersion(t *testing.T) {
	for _, tc := range []struct {
		name, gomod, want string
	}{
		{"block", "module m\n\nrequire (\n\tk8s.io/kubernetes v1.37.2 // indirect\n\tother v1.0.0\n)\n", "v1.37.2"},
		{"line", "module m\nrequire k8s.io/kubernetes v1.30.1\n", "v1.30.1"},
		{"replace is not a require", "module m\nreplace k8s.io/kubernetes => k8s.io/kubernetes v1.2.3\n", ""},
		{"a longer path is another module", "module m\nrequire k8s.io/kubernetes-x v1.2.3\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "go.mod")
			if err := os.WriteFile(path, []byte(tc.gomod), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := requiredVersion(path, kubernetesModule)
			if got != tc.want || (err != nil) != (tc.want == "") {
				t.Errorf("requiredVersion = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestToolsModuleFound(t *testing.T) {
	dir, err := toolsModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	if modulePath(filepath.Join(dir, "go.mod")) != toolsModulePath {
		t.Errorf("%s is not the tools module", dir)
	}
}

// TestCacheKey: the key changes with go.mod and go.sum, not otherwise.
func TestCacheKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key := func() string {
		k, err := cacheKey(dir)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	write("go.mod", "module m\nrequire k8s.io/kubernetes v1.37.2\n")
	write("go.sum", "a h1:x\n")
	k1 := key()
	if k1 != key() {
		t.Fatal("the key is not stable")
	}
	write("go.mod", "module m\nrequire k8s.io/kubernetes v1.37.3\n")
	k2 := key()
	write("go.sum", "a h1:y\n")
	if k3 := key(); k1 == k2 || k2 == k3 || k1 == k3 {
		t.Errorf("keys %s %s %s: want a new key for every change", k1, k2, k3)
	}
}

func TestBinDirEnvUsedAsIs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(BinDirEnv, dir)
	for _, b := range binaries[:2] {
		if err := os.WriteFile(filepath.Join(dir, b.name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Binaries(context.Background())
	if err == nil || !strings.Contains(err.Error(), "kube-scheduler, kube-controller-manager, kube-apiserver") {
		t.Fatalf("Binaries with an incomplete $%s: %v, want an error naming the missing binaries", BinDirEnv, err)
	}
	for _, b := range binaries[2:] {
		if err := os.WriteFile(filepath.Join(dir, b.name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Binaries(context.Background()); got != dir || err != nil {
		t.Errorf("Binaries = %q, %v; want %q", got, err, dir)
	}
}

// TestLockFileSerializes: a second holder waits for the first to unlock,
// or until its context ends.
func TestLockFileSerializes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := lockFile(context.Background(), path, func() { t.Error("the first locker waited") })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path, func() {}); err == nil {
		t.Fatal("a second locker got the lock held by the first")
	}
	waited := make(chan struct{}, 1)
	got := make(chan time.Time, 1)
	go func() {
		unlock2, err := lockFile(context.Background(), path, func() { waited <- struct{}{} })
		if err != nil {
			t.Error(err)
		}
		got <- time.Now()
		unlock2()
	}()
	<-waited
	released := time.Now()
	unlock()
	if at := <-got; at.Before(released) {
		t.Errorf("the second locker got the lock before the first released it")
	}
}
