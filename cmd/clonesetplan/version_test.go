package main

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

func TestReadVersion(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/clonecore/cloneset", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-24T22:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want versionInfo
	}{
		{"release with VCS info", bi, true, versionInfo{Module: "github.com/clonecore/cloneset", Version: "v0.3.0",
			Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-11-24T22:00:00Z", Modified: true, GoVersion: "go1.26.8"}},
		{"checkout without VCS info", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/clonecore/cloneset"}}, true,
			versionInfo{Module: "github.com/clonecore/cloneset", Version: "(devel)", GoVersion: "go1.26.8"}},
		{"no build info", nil, false, versionInfo{Module: "github.com/clonecore/cloneset", Version: "unknown"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := readVersion(tc.bi, tc.ok); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	text := readVersion(bi, true).text()
	for _, want := range []string{"clonesetplan v0.3.0", "revision: 0123456789abcdef0123456789abcdef01234567 (modified)", "time:     2026-11-24T22:00:00Z", "go:       go1.26.8"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if text := readVersion(&debug.BuildInfo{}, true).text(); !strings.Contains(text, "revision: unknown") {
		t.Errorf("text without VCS info does not say so:\n%s", text)
	}
}

func TestRunVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runVersion(nil, &out, &errOut); code != exitOK || !strings.HasPrefix(out.String(), "clonesetplan ") || !strings.Contains(out.String(), "go:       go1.") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := runVersion([]string{"-o", "json"}, &out, &errOut); code != exitOK {
		t.Fatalf("-o json: exit %d: %s", code, errOut.String())
	}
	var v versionInfo
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Module != "github.com/clonecore/cloneset" || v.GoVersion == "" {
		t.Fatalf("-o json printed %s (%v)", out.String(), err)
	}
	for _, args := range [][]string{{"-o", "yaml"}, {"extra"}, {"--bogus"}} {
		if code := runVersion(args, &out, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
