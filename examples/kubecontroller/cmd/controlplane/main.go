// Command controlplane builds and runs the control plane the example's
// tests use (package controlplane): etcd, kube-apiserver, kube-scheduler,
// kube-controller-manager and kwok, at the versions pinned by the tools
// module.
//
//	go run ./cmd/controlplane build
//	go run ./cmd/controlplane up [--nodes N] [--zones Z] [--audit] [--log-dir DIR]
//
// build builds the missing binaries into the cache and prints their
// directory. up starts a control plane, writes its admin kubeconfig, prints
// the kubeconfig's path and runs until SIGINT or SIGTERM, then stops every
// process and removes its files.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
)

const usage = `usage:
  controlplane build
  controlplane up [--nodes N] [--zones Z] [--audit] [--log-dir DIR] [--kubeconfig FILE]
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the command with its arguments and output, until ctx ends (up
// stops the control plane then); it returns the exit status (2 for bad
// usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "build":
		err = build(ctx, args[1:], stdout, stderr)
	case "up":
		err = up(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "controlplane: unknown command %q\n%s", args[0], usage)
		return 2
	}
	var usageErr usageError
	switch {
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "controlplane: %v\n%s", err, usage)
		return 2
	case err != nil:
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

type usageError struct{ error }

func build(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("build takes no arguments")}
	}
	dir, err := controlplane.Build(ctx, controlplane.BuildOptions{Log: stderr})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, dir)
	return nil
}

func up(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.Int("nodes", 3, "kwok nodes to create")
	zones := fs.Int("zones", 3, "zones the nodes are spread over")
	audit := fs.Bool("audit", false, "record pod, PVC, revision and CloneSet writes in the audit log (controlplane.AuditPolicyWrites)")
	logDir := fs.String("log-dir", "", "directory for the components' logs (kept after exit); default: inside the control plane's directory")
	kubeconfig := fs.String("kubeconfig", "", "also copy the admin kubeconfig to this file")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("up takes no arguments")}
	}
	opts := controlplane.Options{Nodes: *nodes, Zones: *zones, LogDir: *logDir, Progress: stderr}
	if *audit {
		opts.AuditPolicy = controlplane.AuditPolicyWrites
	}
	start := time.Now()
	cp, err := controlplane.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer cp.Stop()
	path := cp.KubeconfigPath()
	if *kubeconfig != "" {
		data, err := os.ReadFile(path)
		if err == nil {
			err = os.WriteFile(*kubeconfig, data, 0o600)
		}
		if err != nil {
			return fmt.Errorf("controlplane: copy kubeconfig: %w", err)
		}
		path = *kubeconfig
	}
	fmt.Fprintf(stderr, "controlplane: %s up in %s with %d nodes in %s; logs in %s; Ctrl-C stops it\n",
		cp.Version().GitVersion, time.Since(start).Round(time.Millisecond), len(cp.NodeNames()), cp.Dir(), cp.LogDir())
	fmt.Fprintln(stdout, path)
	<-ctx.Done()
	fmt.Fprintln(stderr, "controlplane: stopping")
	return cp.Stop()
}
