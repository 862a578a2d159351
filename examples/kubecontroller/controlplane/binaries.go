package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// BinDirEnv names the environment variable that, when set, is the directory
// Binaries returns as is: it must already hold every binary, and nothing is
// ever built into it.
const BinDirEnv = "CLONESET_CONTROLPLANE_BIN"

// recipeVersion is part of the cache key: change it whenever the way the
// binaries are built changes (flags, ldflags, the list of binaries), so that
// caches built by the old recipe are not reused.
const recipeVersion = "controlplane-build-1"

// toolsModulePath is the module path of the tools module pinning the
// components' versions.
const toolsModulePath = "github.com/clonecore/cloneset/examples/kubecontroller/tools"

// kubernetesModule is the module the Kubernetes components are built from;
// its version in the tools module's go.mod is the version they report.
const kubernetesModule = "k8s.io/kubernetes"

// A binary is one component's executable and the package it is built from.
type binary struct {
	name, pkg string
	// kubernetes is true for the binaries built from k8s.io/kubernetes,
	// which get the version ldflags.
	kubernetes bool
}

// binaries are built in this order, one at a time (a cold kube-apiserver
// build alone takes minutes on two cores): the cheap ones first, so a
// cancelled build leaves them usable.
var binaries = []binary{
	{name: "etcd", pkg: "go.etcd.io/etcd/server/v3"},
	{name: "kwok", pkg: "sigs.k8s.io/kwok/cmd/kwok"},
	{name: "kube-scheduler", pkg: "k8s.io/kubernetes/cmd/kube-scheduler", kubernetes: true},
	{name: "kube-controller-manager", pkg: "k8s.io/kubernetes/cmd/kube-controller-manager", kubernetes: true},
	{name: "kube-apiserver", pkg: "k8s.io/kubernetes/cmd/kube-apiserver", kubernetes: true},
}

// BuildOptions tune Build.
type BuildOptions struct {
	// Log, when set, receives one line per binary built, waited for or
	// found, and the output of the go command.
	Log io.Writer
}

// Binaries returns the directory holding the control plane's binaries
// (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok),
// building the missing ones first. It is Build with no log.
func Binaries(ctx context.Context) (string, error) {
	return Build(ctx, BuildOptions{})
}

// Build returns the directory holding the control plane's binaries.
//
// With $CLONESET_CONTROLPLANE_BIN set, that directory is returned as it is
// (an error names the binaries it lacks). Otherwise the directory is
// <os.UserCacheDir()>/cloneset-controlplane/<key>, where key hashes the tools
// module's go.mod and go.sum, the build recipe and the target platform: a
// change of any version or of the way the binaries are built gives a new
// directory, and a directory once complete is reused without running the go
// command. Missing binaries are built there with `go build -C <tools module>`,
// each into a temporary file renamed into place, one at a time; concurrent
// callers (several test binaries at once) serialize on a lock file, and the
// later ones find the binaries the first one built.
//
// The Kubernetes binaries are linked with the version of k8s.io/kubernetes
// read from the tools module's go.mod (k8s.io/component-base/version and
// k8s.io/client-go/pkg/version: gitVersion, gitMajor, gitMinor, and fixed
// gitCommit, gitTreeState and buildDate), so that /version reports it.
func Build(ctx context.Context, opts BuildOptions) (string, error) {
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", args...)
		}
	}
	if dir := os.Getenv(BinDirEnv); dir != "" {
		if missing := missingBinaries(dir); len(missing) > 0 {
			return "", fmt.Errorf("controlplane: $%s=%s lacks %s (it is used as is, never built into)", BinDirEnv, dir, strings.Join(missing, ", "))
		}
		return dir, nil
	}
	tools, err := toolsModuleDir()
	if err != nil {
		return "", err
	}
	key, err := cacheKey(tools)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("controlplane: no cache directory for the binaries (set $%s): %w", BinDirEnv, err)
	}
	root := filepath.Join(cache, "cloneset-controlplane")
	dir := filepath.Join(root, key)
	if len(missingBinaries(dir)) == 0 {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("controlplane: binaries directory: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(root, key+".lock"), func() {
		logf("controlplane: waiting for another process building into %s", dir)
	})
	if err != nil {
		return "", err
	}
	defer unlock()
	missing := missingBinaries(dir)
	if len(missing) == 0 {
		logf("controlplane: binaries built by another process in %s", dir)
		return dir, nil
	}
	ldflags, err := kubernetesLdflags(ctx, tools)
	if err != nil {
		return "", err
	}
	for _, b := range binaries {
		if !slices.Contains(missing, b.name) {
			continue
		}
		start := time.Now()
		logf("controlplane: building %s (%s)", b.name, b.pkg)
		flags := ""
		if b.kubernetes {
			flags = ldflags
		}
		if err := buildBinary(ctx, tools, dir, b, flags, opts.Log); err != nil {
			return "", err
		}
		logf("controlplane: built %s in %s", b.name, time.Since(start).Round(time.Second))
	}
	return dir, nil
}

// missingBinaries lists the binaries dir lacks, in build order.
func missingBinaries(dir string) []string {
	var missing []string
	for _, b := range binaries {
		fi, err := os.Stat(filepath.Join(dir, b.name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 == 0 {
			missing = append(missing, b.name)
		}
	}
	return missing
}

// buildBinary builds b into dir through a temporary file renamed into place.
func buildBinary(ctx context.Context, tools, dir string, b binary, ldflags string, log io.Writer) error {
	goCmd, err := goCommand()
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d", b.name, os.Getpid()))
	args := []string{"build", "-C", tools, "-o", tmp}
	if ldflags != "" {
		args = append(args, "-ldflags", ldflags)
	}
	args = append(args, b.pkg)
	cmd := exec.CommandContext(ctx, goCmd, args...)
	// The tools module is built on its own, whatever go.work is around.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if log != nil {
		cmd.Stdout = io.MultiWriter(&out, log)
		cmd.Stderr = cmd.Stdout
	}
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("controlplane: go %s: %w\n%s", strings.Join(args, " "), err, tail(out.String(), 40))
	}
	if err := os.Rename(tmp, filepath.Join(dir, b.name)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("controlplane: install %s: %w", b.name, err)
	}
	return nil
}

// goCommand is the go command building the binaries: the one on $PATH,
// else the one of the toolchain that built this program.
func goCommand() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		return "", errors.New("controlplane: no go command on $PATH to build the binaries with")
	}
	return p, nil
}

// cacheKey hashes what decides the binaries: the recipe, the platform and
// the tools module's go.mod and go.sum.
func cacheKey(tools string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n", recipeVersion, runtime.GOOS, runtime.GOARCH)
	for _, name := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(tools, name))
		if err != nil {
			return "", fmt.Errorf("controlplane: tools module: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:20], nil
}

// toolsModuleDir finds the tools module: beside this package's source when
// the build kept source paths (go test, go run), else under the main module
// the go command sees from the working directory (a -trimpath build run from
// inside the repository).
func toolsModuleDir() (string, error) {
	var candidates []string
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Join(filepath.Dir(file), "..", "tools")
		if modulePath(filepath.Join(dir, "go.mod")) == toolsModulePath {
			return filepath.Clean(dir), nil
		}
		candidates = append(candidates, dir)
	}
	if goCmd, err := goCommand(); err == nil {
		if out, err := exec.Command(goCmd, "env", "GOMOD").Output(); err == nil {
			if mod := strings.TrimSpace(string(out)); mod != "" && mod != os.DevNull {
				root := filepath.Dir(mod)
				candidates = append(candidates, root, filepath.Join(root, "tools"), filepath.Join(root, "examples", "kubecontroller", "tools"))
			}
		}
	}
	for _, dir := range candidates {
		if modulePath(filepath.Join(dir, "go.mod")) == toolsModulePath {
			return filepath.Clean(dir), nil
		}
	}
	return "", fmt.Errorf("controlplane: tools module %s not found (looked in %s); run from the repository or set $%s", toolsModulePath, strings.Join(candidates, ", "), BinDirEnv)
}

// modulePath is the module path a go.mod declares ("" when unreadable).
func modulePath(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// requiredVersion is the version of module that the go.mod at gomod
// requires, from a require line or block.
func requiredVersion(gomod, module string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", fmt.Errorf("controlplane: %w", err)
	}
	inRequire := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "require" && f[1] == "(":
			inRequire = true
		case inRequire && len(f) == 1 && f[0] == ")":
			inRequire = false
		case len(f) == 3 && f[0] == "require" && f[1] == module:
			return f[2], nil
		case inRequire && len(f) == 2 && f[0] == module:
			return f[1], nil
		}
	}
	return "", fmt.Errorf("controlplane: %s does not require %s", gomod, module)
}

// kubernetesLdflags sets the version variables of the Kubernetes binaries
// from the version of k8s.io/kubernetes the tools module requires. The
// build date is the version's commit time as the module proxy gives it (a
// fixed value); the module carries no git commit, so gitCommit is zeros.
func kubernetesLdflags(ctx context.Context, tools string) (string, error) {
	version, err := requiredVersion(filepath.Join(tools, "go.mod"), kubernetesModule)
	if err != nil {
		return "", err
	}
	major, minor, ok := majorMinor(version)
	if !ok {
		return "", fmt.Errorf("controlplane: %s %s is not a vMAJOR.MINOR.PATCH version", kubernetesModule, version)
	}
	buildDate := "1970-01-01T00:00:00Z"
	if goCmd, err := goCommand(); err == nil {
		cmd := exec.CommandContext(ctx, goCmd, "list", "-C", tools, "-m", "-json", kubernetesModule)
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.Output(); err == nil {
			var m struct{ Time *time.Time }
			if json.Unmarshal(out, &m) == nil && m.Time != nil {
				buildDate = m.Time.UTC().Format(time.RFC3339)
			}
		}
	}
	vars := []string{
		"gitVersion=" + version,
		"gitMajor=" + major,
		"gitMinor=" + minor,
		"gitCommit=" + strings.Repeat("0", 40),
		"gitTreeState=clean",
		"buildDate=" + buildDate,
	}
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, v := range vars {
			flags = append(flags, "-X", pkg+"."+v)
		}
	}
	return strings.Join(flags, " "), nil
}

// majorMinor splits "v1.37.2" into "1" and "37".
func majorMinor(version string) (major, minor string, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	if !strings.HasPrefix(version, "v") || len(parts) != 3 {
		return "", "", false
	}
	for _, p := range parts[:2] {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return "", "", false
		}
	}
	return parts[0], parts[1], true
}

// lockFile takes an exclusive flock on path, polling so that ctx can cancel
// the wait; waiting is called once when another process holds the lock.
func lockFile(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("controlplane: lock file: %w", err)
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("controlplane: lock %s: %w", path, err)
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("controlplane: waiting for the build lock %s: %w", path, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}
