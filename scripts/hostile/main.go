// Command hostile writes the hostile inputs of docs/reliability.md into a
// directory, one scenario file per case, for scripts/hostile.sh to run
// through `clonesetplan` under /usr/bin/time.
//
//	go run ./scripts/hostile DIR
//
// Each file is named after its case; the first line of each file is a
// comment saying what it tries (YAML) or the case is listed in cases below
// (JSON inputs).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// cloneSet returns a v1beta1 (or v1alpha1) CloneSet named big whose spec has
// the given extra lines (indented by two spaces, under spec).
func cloneSet(api, replicas, extra string) string {
	return fmt.Sprintf(`apiVersion: apps.kruise.io/%s
kind: CloneSet
metadata: {name: big, namespace: default, uid: uid-big}
spec:
  replicas: %s
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: c, image: "nginx:1"}]}
%s`, api, replicas, extra)
}

const scenarioDoc = "apiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: \"2026-01-01T01:00:00Z\"\n---\n"

const vct = `  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`

// pods writes n pods named prefix-<i> owned by the CloneSet big (owner "")
// or by a ReplicaSet (owner "rs"), ready for an hour.
func pods(b *strings.Builder, n int, prefix, owner string) {
	ref := "{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: big, uid: uid-big, controller: true}"
	if owner == "rs" {
		ref = "{apiVersion: apps/v1, kind: ReplicaSet, name: other, uid: uid-other, controller: true}"
	}
	for i := range n {
		fmt.Fprintf(b, `---
apiVersion: v1
kind: Pod
metadata:
  name: %[1]s-%[2]d
  namespace: default
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: big, apps.kruise.io/cloneset-instance-id: "%[1]s%[2]d", controller-revision-hash: big-rev, lifecycle.apps.kruise.io/state: Normal}
  ownerReferences: [%[3]s]
spec: {nodeName: node-0, containers: [{name: c, image: "nginx:1"}]}
status:
  phase: Running
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z"}]
`, prefix, i, ref)
	}
}

// podsJSON is pods as a JSON stream, one object a line (kubectl's -o json
// items, as the fast JSON reader reads them).
func podsJSON(b *strings.Builder, n int, prefix, owner string) {
	ref := `{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "name": "big", "uid": "uid-big", "controller": true}`
	if owner == "rs" {
		ref = `{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "other", "uid": "uid-other", "controller": true}`
	}
	for i := range n {
		fmt.Fprintf(b, `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "%[1]s-%[2]d", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z", `+
			`"labels": {"app": "big", "apps.kruise.io/cloneset-instance-id": "%[1]s%[2]d", "controller-revision-hash": "big-rev", "lifecycle.apps.kruise.io/state": "Normal"}, `+
			`"ownerReferences": [%[3]s]}, "spec": {"nodeName": "node-0", "containers": [{"name": "c", "image": "nginx:1"}]}, `+
			`"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}`+"\n", prefix, i, ref)
	}
}

// cloneSetJSON is a v1beta1 CloneSet big with replicas and a raw JSON spec
// tail, after a Scenario object.
func cloneSetJSON(replicas, extra string) string {
	return `{"apiVersion": "clonesetcore/v1alpha1", "kind": "Scenario", "now": "2026-01-01T01:00:00Z"}` + "\n" +
		`{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "metadata": {"name": "big", "namespace": "default", "uid": "uid-big"}, ` +
		`"spec": {"replicas": ` + replicas + `, "selector": {"matchLabels": {"app": "big"}}, ` +
		`"template": {"metadata": {"labels": {"app": "big"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1"}]}}` + extra + "}}\n"
}

type hostileCase struct {
	name, what string
	text       func() string
}

var cases = []hostileCase{
	{"replicas-max-v1alpha1", "v1alpha1, spec.replicas 2147483647, no pods", func() string {
		return cloneSet("v1alpha1", "2147483647", "")
	}},
	{"replicas-max-vct", "v1alpha1, spec.replicas 2147483647, volume claim templates", func() string {
		return cloneSet("v1alpha1", "2147483647", vct)
	}},
	{"replicas-max-scale-100pct", "v1beta1, spec.replicas 2147483647, scaleStrategy.maxUnavailable 100%", func() string {
		return cloneSet("v1beta1", "2147483647", "  scaleStrategy: {maxUnavailable: \"100%\"}\n")
	}},
	{"replicas-max-scale-100", "v1beta1, spec.replicas 2147483647, scaleStrategy.maxUnavailable 100 (the controller's own rate limit)", func() string {
		return cloneSet("v1beta1", "2147483647", "  scaleStrategy: {maxUnavailable: 100}\n"+vct)
	}},
	{"replicas-150000", "spec.replicas 150000 (the limit), no pods, volume claim templates", func() string {
		return scenarioDoc + cloneSet("v1beta1", "150000", vct)
	}},
	{"replicas-150001", "spec.replicas 150001 (the limit + 1), no pods", func() string {
		return scenarioDoc + cloneSet("v1beta1", "150001", "")
	}},
	{"percent-extremes", "10 pods, partition 2147483647, maxSurge \"9223372036854775807%\", maxUnavailable \"2147483647%\"", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + cloneSet("v1alpha1", "10", `  updateStrategy: {partition: 2147483647, maxSurge: "9223372036854775807%", maxUnavailable: "2147483647%"}
`))
		pods(&b, 10, "big", "")
		return b.String()
	}},
	{"seconds-max", "minReadySeconds, gracePeriodSeconds and a preDelete hook at their int32 maximum, progressDeadlineSeconds absent, 10 pods", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + cloneSet("v1beta1", "5", `  minReadySeconds: 2147483647
  updateStrategy: {rollingUpdate: {podUpdatePolicy: InPlaceIfPossible, inPlaceUpdateStrategy: {gracePeriodSeconds: 2147483647}}}
`))
		pods(&b, 10, "big", "")
		return b.String()
	}},
	{"time-extremes", "clock at 9999-12-31, pods ready since 0001-01-01, minReadySeconds 2147483647", func() string {
		var b strings.Builder
		b.WriteString("apiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: \"9999-12-31T23:59:59Z\"\n---\n" + cloneSet("v1beta1", "3", "  minReadySeconds: 2147483647\n"))
		p := strings.Builder{}
		pods(&p, 5, "big", "")
		b.WriteString(strings.ReplaceAll(p.String(), "2026-01-01T00:00:00Z", "0001-01-01T00:00:00Z"))
		return b.String()
	}},
	{"pods-to-delete-100k", "spec.scaleStrategy.podsToDelete with 100,000 names of absent pods", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + cloneSet("v1beta1", "0", "  scaleStrategy:\n    podsToDelete:\n"))
		for i := range 100_000 {
			fmt.Fprintf(&b, "    - gone-%d\n", i)
		}
		return b.String()
	}},
	{"template-labels-50k", "50,000 template labels (selector matches one)", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + `apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: big, namespace: default, uid: uid-big}
spec:
  replicas: 3
  selector: {matchLabels: {app: big}}
  template:
    spec: {containers: [{name: c, image: "nginx:1"}]}
    metadata:
      labels:
        app: big
`)
		for i := range 50_000 {
			fmt.Fprintf(&b, "        l%d: v%d\n", i, i)
		}
		return b.String()
	}},
	{"foreign-pods-100k", "100,000 pods controlled by a ReplicaSet, 3 replicas", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + cloneSet("v1beta1", "3", ""))
		pods(&b, 100_000, "rs", "rs")
		return b.String()
	}},
	{"foreign-pods-100k-json", "100,000 pods controlled by a ReplicaSet, 3 replicas, JSON", func() string {
		var b strings.Builder
		b.WriteString(cloneSetJSON("3", ""))
		podsJSON(&b, 100_000, "rs", "rs")
		return b.String()
	}},
	{"scale-in-100k-json", "100,000 owned pods, spec.replicas 0 (100,000 deletions), JSON", func() string {
		var b strings.Builder
		b.WriteString(cloneSetJSON("0", `, "updateStrategy": {"rollingUpdate": {"maxUnavailable": "100%"}}`))
		podsJSON(&b, 100_000, "big", "")
		return b.String()
	}},
	{"pod-annotations-64mb", "a pod whose in-place-update state and deletion cost annotations are 32 MB each", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + cloneSet("v1beta1", "1", ""))
		p := strings.Builder{}
		pods(&p, 1, "big", "")
		big := strings.Repeat("9", 32<<20)
		b.WriteString(strings.Replace(p.String(), "  ownerReferences:", "  annotations: {apps.kruise.io/inplace-update-state: '{\"revision\": \"big-rev\", \"x\": \""+
			strings.Repeat("y", 32<<20)+"\"}', controller.kubernetes.io/pod-deletion-cost: \""+big+"\"}\n  ownerReferences:", 1))
		return b.String()
	}},
	{"scale-in-100k", "100,000 owned pods, spec.replicas 0 (100,000 deletions)", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + cloneSet("v1beta1", "0", "  updateStrategy: {rollingUpdate: {maxUnavailable: \"100%\"}}\n"))
		pods(&b, 100_000, "big", "")
		return b.String()
	}},
	{"annotation-64mb", "a 64 MB annotation on the CloneSet", func() string {
		return scenarioDoc + strings.Replace(cloneSet("v1beta1", "1", ""), "uid: uid-big}",
			"uid: uid-big, annotations: {big: \""+strings.Repeat("x", 64<<20)+"\"}}", 1)
	}},
	{"nesting-yaml-1m", "YAML nested 1,000,000 levels deep ([[[[...)", func() string {
		return cloneSet("v1beta1", "1", "") + "  deep: " + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + "\n"
	}},
	{"nesting-json-1m", "JSON nested 1,000,000 levels deep", func() string {
		return `{"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet", "metadata": {"name": "big"}, "spec": {"x": ` +
			strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + "}}"
	}},
	{"alias-bomb", "YAML aliases: 9 levels of 10 references inside spec.template.spec (10^9 nodes if expanded)", func() string {
		var b strings.Builder
		b.WriteString("  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
		for i := 1; i < 10; i++ {
			fmt.Fprintf(&b, "  a%d: &a%d [", i, i)
			for j := range 10 {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "*a%d", i-1)
			}
			b.WriteString("]\n")
		}
		return "apiVersion: apps.kruise.io/v1beta1\nkind: CloneSet\nanchors:\n" + b.String() + `metadata: {name: big, namespace: default, uid: uid-big}
spec:
  replicas: 1
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: c, image: "nginx:1"}], bomb: *a9}
`
	}},
	{"alias-bomb-labels", "YAML merge keys expanding into the template labels (4^11 x 8 pairs if expanded)", func() string {
		var b strings.Builder
		b.WriteString("  l0: &l0 {app: big, c: d, e: f, g: h, i: j, k: l, m: n, o: p}\n")
		for i := 1; i < 12; i++ {
			fmt.Fprintf(&b, "  l%d: &l%d {<<: [*l%d, *l%d, *l%d, *l%d]}\n", i, i, i-1, i-1, i-1, i-1)
		}
		return "apiVersion: apps.kruise.io/v1beta1\nkind: CloneSet\nanchors:\n" + b.String() + `metadata: {name: big, namespace: default, uid: uid-big}
spec:
  replicas: 1
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: *l11}
    spec: {containers: [{name: c, image: "nginx:1"}]}
`
	}},
	{"instance-ids-150k-pvcs", "150,000 owned PVCs of gone pods, reuse off (150,000 clean-up deletions), 10 replicas", func() string {
		var b strings.Builder
		b.WriteString(scenarioDoc + cloneSet("v1beta1", "10", vct))
		for i := range 150_000 {
			fmt.Fprintf(&b, `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-big-x%[1]d, namespace: default, labels: {apps.kruise.io/cloneset-instance-id: x%[1]d}, ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: big, uid: uid-big, controller: true}]}
`, i)
		}
		return b.String()
	}},
	{"documents-1m-empty", "1,000,000 empty YAML documents", func() string {
		return cloneSet("v1beta1", "1", "") + strings.Repeat("---\n", 1_000_000)
	}},
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/hostile DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var index strings.Builder
	for _, c := range cases {
		ext := ".yaml"
		if strings.HasPrefix(c.name, "nesting-json") || strings.HasSuffix(c.name, "-json") {
			ext = ".json"
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+ext), []byte(c.text()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintf(&index, "%s%s\t%s\n", c.name, ext, c.what)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.tsv"), []byte(index.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
