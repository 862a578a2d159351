package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestPlanHugeReplicasCLI: `clonesetplan plan` on spec.replicas 2147483647
// (issue 19) exits with status 1 at once, with a message naming the field
// and the limit.
func TestPlanHugeReplicasCLI(t *testing.T) {
	doc := `apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: big, namespace: default, uid: uid-big}
spec:
  replicas: 2147483647
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: c, image: nginx}]}
  scaleStrategy: {maxUnavailable: "100%"}
`
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run([]string{"plan", "-f", "-"}, strings.NewReader(doc), &stdout, &stderr)
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
	if code != exitInput || stdout.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, stdout.String())
	}
	for _, part := range []string{"default/big", "spec.replicas 2147483647", "150000", "Limits.MaxCreatePods"} {
		if !strings.Contains(stderr.String(), part) {
			t.Errorf("stderr %q lacks %q", stderr.String(), part)
		}
	}
}
