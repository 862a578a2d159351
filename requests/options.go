package requests

import (
	"fmt"
	"strconv"
	"strings"
)

// Options are what the requests of a plan depend on besides the plan and its
// scenario: facts about the API server they are sent to. The zero Options
// describe the newest servers.
type Options struct {
	// ServerVersion is the Kubernetes version of the API server, as its
	// /version endpoint reports it (gitVersion: "v1.37.2",
	// "v1.33.1-gke.5", "v1.32.0-rc.1+abc") or as a person writes it
	// ("1.31"). Only the major and minor numbers count; a pre-release or
	// build suffix is ignored, as upstream ignores it. Empty means the
	// newest behavior (1.32 or later).
	//
	// It decides where the resource changes of an in-place update go
	// (docs/spec/update-and-ordering.md 4.5): from 1.32, a patch of the
	// pods/resize subresource sent before the pod patch, which then
	// carries no resources; before 1.32, the pod patch itself.
	ServerVersion string
}

// ResizeSubresourceMinor is the first minor version of Kubernetes 1 whose API
// server has the pods/resize subresource (kubernetes#128266) and, from then
// on, refuses resource changes in a pod update; upstream sends resource
// changes there from this version on (kruise pkg/client
// ShouldUpdateResourceByResize).
const ResizeSubresourceMinor = 32

// Validate reports whether the options are usable: an error names the
// option and says what was expected.
func (o Options) Validate() error {
	_, err := o.ResizeSubresource()
	return err
}

// ResizeSubresource reports whether the server of these options takes
// resource changes through the pods/resize subresource: a ServerVersion of
// 1.32 or later, or none (the newest behavior).
func (o Options) ResizeSubresource() (bool, error) {
	v, ok, err := parseServerVersion(o.ServerVersion)
	if err != nil || !ok {
		return err == nil, err
	}
	return v.major > 1 || v.major == 1 && v.minor >= ResizeSubresourceMinor, nil
}

// serverVersion is the major and minor number of a Kubernetes version.
type serverVersion struct{ major, minor int }

// parseServerVersion reads a Kubernetes version: an optional "v", the major
// number, a dot, the minor number (which may be followed by a suffix that
// starts with "+" or "-", as some providers report it: "1.32+"), and an
// optional dot and patch part that starts with a digit ("0",
// "0-rc.1+abc", "1-gke.5"). ok is false for an empty text (no version
// given).
func parseServerVersion(text string) (v serverVersion, ok bool, err error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return v, false, nil
	}
	bad := func() (serverVersion, bool, error) {
		return serverVersion{}, false, fmt.Errorf("requests: option ServerVersion: %q is not a Kubernetes version (want MAJOR.MINOR[.PATCH], as in v1.32.0 or 1.31)", text)
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return bad()
	}
	major, rest := leadingDigits(parts[0])
	if major == "" || rest != "" {
		return bad()
	}
	minor, rest := leadingDigits(parts[1])
	if minor == "" || rest != "" && rest[0] != '+' && rest[0] != '-' {
		return bad()
	}
	if len(parts) == 3 {
		if patch, _ := leadingDigits(parts[2]); patch == "" {
			return bad()
		}
	}
	var errMajor, errMinor error
	v.major, errMajor = strconv.Atoi(major)
	v.minor, errMinor = strconv.Atoi(minor)
	if errMajor != nil || errMinor != nil {
		return bad()
	}
	return v, true, nil
}

// leadingDigits splits s after its leading decimal digits.
func leadingDigits(s string) (digits, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}
