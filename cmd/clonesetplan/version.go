package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// versionInfo is what `clonesetplan version` prints: where the binary comes
// from, as the Go toolchain recorded it in the build info.
type versionInfo struct {
	// Module is the main module's path.
	Module string `json:"module"`
	// Version is the main module's version: a release tag, a pseudo-version
	// for `go install ...@commit`, or "(devel)" for a build in a checkout.
	Version string `json:"version"`
	// Revision is the VCS revision (vcs.revision), "" when not recorded.
	Revision string `json:"revision,omitempty"`
	// Time is the revision's commit time (vcs.time), "" when not recorded.
	Time string `json:"time,omitempty"`
	// Modified is true when the working tree had uncommitted changes
	// (vcs.modified).
	Modified bool `json:"modified,omitempty"`
	// GoVersion is the toolchain that built the binary.
	GoVersion string `json:"goVersion"`
}

// readVersion extracts the version from build info (ok false: none, as in a
// binary built without module support).
func readVersion(bi *debug.BuildInfo, ok bool) versionInfo {
	if !ok || bi == nil {
		return versionInfo{Module: "github.com/clonecore/cloneset", Version: "unknown"}
	}
	v := versionInfo{Module: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// text renders the version for people.
func (v versionInfo) text() string {
	rev := v.Revision
	switch {
	case rev == "":
		rev = "unknown (built without VCS information; -buildvcs=false or not in a checkout)"
	case v.Modified:
		rev += " (modified)"
	}
	out := fmt.Sprintf("clonesetplan %s\n  module:   %s\n  revision: %s\n", v.Version, v.Module, rev)
	if v.Time != "" {
		out += fmt.Sprintf("  time:     %s\n", v.Time)
	}
	if v.GoVersion != "" {
		out += fmt.Sprintf("  go:       %s\n", v.GoVersion)
	}
	return out
}

// runVersion is `clonesetplan version [-o text|json]`: it reads no scenario.
func runVersion(args []string, stdout, stderr io.Writer) int {
	return printVersion(readVersion(debug.ReadBuildInfo()), args, stdout, stderr)
}

func printVersion(v versionInfo, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("clonesetplan version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	output := fs.String("o", "text", "output `FORMAT`: text or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout, "version", fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "clonesetplan version: %v\n", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "clonesetplan version: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	switch *output {
	case "text":
		fmt.Fprint(stdout, v.text())
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "clonesetplan version: %v\n", err)
			return exitInput
		}
		fmt.Fprintf(stdout, "%s\n", b)
	default:
		fmt.Fprintf(stderr, "clonesetplan version: unknown output format %q (want text or json)\n", *output)
		return exitUsage
	}
	return exitOK
}
