package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// wideText turns fuzz input into a scenario stream: a CloneSet whose numbers
// are written as any text a YAML number can take (int32 and int64 extremes,
// floats, hex, infinities, strings), with up to thousands of template labels,
// podsToDelete names and pods, a field nested up to thousands of levels and
// YAML anchors referenced up to thousands of times.
type wideText struct{ data []byte }

func (w *wideText) n(k int) int {
	if len(w.data) == 0 || k <= 1 {
		return 0
	}
	v := int(w.data[0])
	w.data = w.data[1:]
	return v % k
}

func (w *wideText) u(k int) uint64 {
	var b [8]byte
	m := min(k, len(w.data))
	copy(b[:], w.data[:m])
	w.data = w.data[m:]
	return binary.LittleEndian.Uint64(b[:])
}

func (w *wideText) size(max int) int {
	if w.n(2) == 0 {
		return w.n(6)
	}
	return int(w.u(2) % uint64(max+1))
}

// number writes a number the way an adversary might.
func (w *wideText) number() string {
	switch max(0, w.n(11)-5) { // small numbers half of the time
	case 0:
		return fmt.Sprint(w.n(20))
	case 1:
		return fmt.Sprint(int32(w.u(4)))
	case 2:
		return fmt.Sprint(int64(w.u(8)))
	case 3:
		odd := []string{"2147483647", "2147483648", "-2147483648", "-1", "150000", "150001", "9223372036854775807",
			"99999999999999999999", "1e9", "1.5", ".inf", "-.inf", ".nan", "0x7fffffff", "0o17", "1_000", "null", "~", "''", "[]", "{}"}
		return odd[w.n(len(odd))]
	case 4:
		return fmt.Sprintf("%q", fmt.Sprintf("%d%%", int64(w.u(8))))
	default:
		odd := []string{`"100%"`, `"0%"`, `"1e308%"`, `"NaN%"`, `"12.5%"`, `"2147483647%"`, `"-5%"`, `"%"`, `"50"`}
		return odd[w.n(len(odd))]
	}
}

func (w *wideText) stream() string {
	var b strings.Builder
	b.WriteString("apiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: \"2026-01-01T01:00:00Z\"\n---\n")
	api := []string{"v1alpha1", "v1beta1"}[w.n(2)]
	fmt.Fprintf(&b, "apiVersion: apps.kruise.io/%s\nkind: CloneSet\nmetadata: {name: big, namespace: default, uid: uid-big}\n", api)
	if w.n(3) == 0 { // anchors, referenced from the template below
		b.WriteString("anchors:\n  a0: &a0 [x, y, z]\n")
	}
	b.WriteString("spec:\n")
	fmt.Fprintf(&b, "  replicas: %s\n  selector: {matchLabels: {app: big}}\n", w.number())
	fmt.Fprintf(&b, "  minReadySeconds: %s\n", w.number())
	if w.n(2) == 1 {
		fmt.Fprintf(&b, "  progressDeadlineSeconds: %s\n", w.number())
	}
	b.WriteString("  template:\n    metadata:\n      labels:\n        app: big\n")
	for i := range w.size(3000) {
		fmt.Fprintf(&b, "        l%d: v%d\n", i, i)
	}
	b.WriteString("    spec:\n      containers: [{name: c, image: \"nginx:1\"}]\n")
	if depth := w.size(400); depth > 0 { // the loader's limit is 200
		fmt.Fprintf(&b, "      deep: %s%s\n", strings.Repeat("[", depth), strings.Repeat("]", depth))
	}
	if refs := w.size(3000); refs > 0 && strings.Contains(b.String(), "&a0") {
		b.WriteString("      refs: [" + strings.TrimSuffix(strings.Repeat("*a0, ", refs), ", ") + "]\n")
	}
	if w.n(2) == 1 {
		b.WriteString("  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]\n")
	}
	if api == "v1alpha1" {
		fmt.Fprintf(&b, "  updateStrategy: {partition: %s, maxSurge: %s, maxUnavailable: %s}\n", w.number(), w.number(), w.number())
	} else {
		fmt.Fprintf(&b, "  updateStrategy: {rollingUpdate: {partition: %s, maxSurge: %s, maxUnavailable: %s}}\n", w.number(), w.number(), w.number())
	}
	fmt.Fprintf(&b, "  scaleStrategy:\n    maxUnavailable: %s\n    podsToDelete: [", w.number())
	pods := w.size(300)
	for i := range w.size(3000) {
		if i > 0 {
			b.WriteString(", ")
		}
		if pods > 0 && i%2 == 0 {
			fmt.Fprintf(&b, "big-%d", i%pods)
		} else {
			fmt.Fprintf(&b, "gone-%d", i)
		}
	}
	b.WriteString("]\n")
	for i := range pods {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Pod
metadata: {name: big-%[1]d, namespace: default, labels: {app: big, apps.kruise.io/cloneset-instance-id: "i%[1]d"}, ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: big, uid: uid-big, controller: true}]}
spec: {containers: [{name: c, image: "nginx:1"}]}
status: {phase: Running, conditions: [{type: Ready, status: "True", lastTransitionTime: "%[2]s"}]}
`, i, []string{"2026-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"}[w.n(3)])
	}
	return b.String()
}

// FuzzCLIWide runs `clonesetplan plan` and `rank` on the streams of
// wideText: every answer must be a plan (exit 0) or one clear error (exit 1,
// one line naming the input), within a time and a memory bound
// proportional to the input, never a panic.
//
// Run it with: go test -run='^$' -fuzz='^FuzzCLIWide$' -fuzztime=10m -parallel=1 ./cmd/clonesetplan/
func FuzzCLIWide(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 3, 0xff, 0xff, 0xff, 0x7f})
	f.Add(bytes.Repeat([]byte{1, 0xb8, 0x0b, 3, 7}, 30))
	f.Add([]byte("numbers of every shape, thousands of labels, names and references"))
	f.Fuzz(func(t *testing.T, data []byte) {
		watchdog := time.AfterFunc(60*time.Second, func() { panic("FuzzCLIWide: one execution ran for 60 s") })
		defer watchdog.Stop()
		in := (&wideText{data: data}).stream()
		for _, args := range [][]string{{"plan", "-f", "-", "-o", "json"}, {"rank", "-f", "-", "--for", "deletion"}} {
			var stdout, stderr bytes.Buffer
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			code := run(args, strings.NewReader(in), &stdout, &stderr)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(64<<20+4096*len(in)+1024*stdout.Len()) {
				t.Fatalf("%s allocated %d MB for %d bytes of input", args[0], alloc>>20, len(in))
			}
			if elapsed > 20*time.Second {
				t.Fatalf("%s took %v for %d bytes", args[0], elapsed, len(in))
			}
			switch code {
			case exitOK:
				if stdout.Len() == 0 {
					t.Fatalf("%s: exit 0 without output", args[0])
				}
			case exitInput:
				msg := stderr.String()
				if !strings.HasPrefix(msg, "clonesetplan "+args[0]+": ") || stdout.Len() != 0 {
					t.Fatalf("%s: exit 1 with stderr %q, stdout %d bytes", args[0], msg, stdout.Len())
				}
			default:
				t.Fatalf("%s: exit %d: %s", args[0], code, stderr.String())
			}
		}
	})
}
