package manifest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// splitCloneSet is a CloneSet document of namespace ns selecting sel (k=v)
// with replicas pods.
func splitCloneSet(ns, name, sel string, replicas int) string {
	k, v, _ := strings.Cut(sel, "=")
	return fmt.Sprintf(`apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: %s, namespace: %s, uid: uid-%s}
spec:
  replicas: %d
  selector: {matchLabels: {%s: %s}}
  template:
    metadata: {labels: {%s: %s}}
    spec: {containers: [{name: main, image: "img:%s"}]}
`, name, ns, name, replicas, k, v, k, v, name)
}

// splitPod is a pod of namespace ns with labels (k=v, ...) and, when owner is
// not empty, a controller owner reference "Kind/name" (uid uid-name).
func splitPod(ns, name, owner string, labels ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n", name)
	if ns != "" {
		fmt.Fprintf(&b, "  namespace: %s\n", ns)
	}
	fmt.Fprintf(&b, "  uid: uid-%s\n  creationTimestamp: '2026-01-01T00:00:01Z'\n  labels: {", name)
	for i, l := range labels {
		k, v, _ := strings.Cut(l, "=")
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", k, v)
	}
	b.WriteString("}\n")
	if owner != "" {
		kind, oname, _ := strings.Cut(owner, "/")
		fmt.Fprintf(&b, "  ownerReferences: [{apiVersion: x/v1, kind: %s, name: %s, uid: uid-%s, controller: true}]\n", kind, oname, oname)
	}
	b.WriteString("spec: {containers: [{name: main, image: img}]}\n")
	return b.String()
}

func splitPVC(ns, name, owner string) string {
	s := fmt.Sprintf("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: %s\n  namespace: %s\n", name, ns)
	if owner != "" {
		kind, oname, _ := strings.Cut(owner, "/")
		s += fmt.Sprintf("  ownerReferences: [{apiVersion: x/v1, kind: %s, name: %s, uid: uid-%s, controller: true}]\n", kind, oname, oname)
	}
	return s
}

func splitRevision(ns, name, owner, label string) string {
	k, v, _ := strings.Cut(label, "=")
	s := fmt.Sprintf("apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: %s\n  namespace: %s\n  labels: {%s: %s}\n", name, ns, k, v)
	if owner != "" {
		kind, oname, _ := strings.Cut(owner, "/")
		s += fmt.Sprintf("  ownerReferences: [{apiVersion: x/v1, kind: %s, name: %s, uid: uid-%s, controller: true}]\n", kind, oname, oname)
	}
	return s + "revision: 1\n"
}

func stream(docs ...string) string { return strings.Join(docs, "---\n") }

// namespaceDump is a dump of namespace prod with CloneSets web and api, their
// pods interleaved, orphans, a pod both selectors match, a pod whose owner is
// absent, PVCs, revisions, a Service and nodes; plus one pod of another
// namespace.
func namespaceDump() []string {
	return []string{
		splitPod("prod", "api-1", "CloneSet/api", "tier=api"),
		splitCloneSet("prod", "web", "app=web", 3),
		splitPod("prod", "web-1", "CloneSet/web", "app=web"),
		"apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: prod}\nspec: {selector: {app: web}}\n",
		splitPod("prod", "web-orphan", "", "app=web"),
		splitCloneSet("prod", "api", "tier=api", 2),
		splitPod("prod", "api-2", "CloneSet/api", "tier=api"),
		splitPod("prod", "both", "", "app=web", "tier=api"),
		splitPod("prod", "ghost-1", "CloneSet/ghost", "app=ghost"),
		splitPod("prod", "rs-1", "ReplicaSet/rs", "app=web"),
		splitPod("prod", "stray", "", "app=stray"),
		splitPod("other", "elsewhere", "", "app=web"),
		splitPVC("prod", "data-web-1", "Pod/web-1"),
		splitPVC("prod", "data-api", "CloneSet/api"),
		splitPVC("prod", "data-both", "Pod/both"),
		splitPVC("prod", "loose", ""),
		splitRevision("prod", "web-rev", "CloneSet/web", "app=web"),
		splitRevision("prod", "api-rev", "", "tier=api"),
		splitRevision("prod", "sts-rev", "StatefulSet/db", "app=db"),
		"apiVersion: v1\nkind: Node\nmetadata: {name: node-1, labels: {zone: a}}\n",
		"apiVersion: v1\nkind: Node\nmetadata: {name: node-2}\n",
		"apiVersion: clonesetcore/v1alpha1\nkind: Scenario\nnow: '2026-01-01T01:00:00Z'\nfeatureGates: {CloneSetShortHash: true}\n",
	}
}

func names[T any](list []T, name func(T) string) []string {
	out := []string{}
	for _, x := range list {
		out = append(out, name(x))
	}
	slices.Sort(out)
	return out
}

func setAside(s *model.Scenario) map[string]string {
	m := map[string]string{}
	for _, a := range s.SetAside {
		m[a.Kind+" "+a.Name] = a.Reason
	}
	return m
}

func TestLoadAllTutorialShape(t *testing.T) {
	// Two CloneSets and their Services in one file, no namespaces: the
	// OpenKruise tutorial's shape.
	in := stream(
		strings.Replace(splitCloneSet("", "leader", "role=leader", 1), "namespace: ,", "", 1),
		"apiVersion: v1\nkind: Service\nmetadata: {name: leader}\nspec: {selector: {role: leader}}\n",
		strings.Replace(splitCloneSet("", "follower", "role=follower", 2), "namespace: ,", "", 1),
		"apiVersion: v1\nkind: Service\nmetadata: {name: follower}\nspec: {selector: {role: follower}}\n",
	)
	scns, err := manifest.LoadAll(strings.NewReader(in), "redis.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range scns {
		got = append(got, s.CloneSet.Namespace+"/"+s.CloneSet.Name)
		if len(s.Pods)+len(s.PVCs)+len(s.Revisions)+len(s.SetAside) != 0 {
			t.Errorf("%s: objects %+v", s.CloneSet.Name, s)
		}
	}
	if want := []string{"default/follower", "default/leader"}; !reflect.DeepEqual(got, want) {
		t.Errorf("CloneSets %v, want %v (namespace/name order)", got, want)
	}
	// Load keeps refusing such a stream.
	if _, err := manifest.Load(strings.NewReader(in), "redis.yaml"); err == nil || !strings.Contains(err.Error(), "2 CloneSets in the input, need exactly one") {
		t.Errorf("Load: %v", err)
	}
}

func TestLoadAllNamespaceDump(t *testing.T) {
	scns, err := manifest.LoadAllBytes([]byte(stream(namespaceDump()...)), "dump.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(scns) != 2 || scns[0].CloneSet.Name != "api" || scns[1].CloneSet.Name != "web" {
		t.Fatalf("scenarios %v", scns)
	}
	api, web := scns[0], scns[1]
	pod := func(p *model.Pod) string { return p.Name }
	pvc := func(p *model.PVC) string { return p.Name }
	rev := func(r *model.Revision) string { return r.Name }
	node := func(n *model.Node) string { return n.Name }
	check := func(what string, got, want []string) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	check("api pods", names(api.Pods, pod), []string{"api-1", "api-2"})
	check("web pods", names(web.Pods, pod), []string{"web-1", "web-orphan"})
	check("api PVCs", names(api.PVCs, pvc), []string{"data-api"})
	check("web PVCs", names(web.PVCs, pvc), []string{"data-web-1"})
	check("api revisions", names(api.Revisions, rev), []string{"api-rev"}) // orphan, adopted by selector
	check("web revisions", names(web.Revisions, rev), []string{"web-rev"})
	check("api nodes", names(api.Nodes, node), []string{"node-1", "node-2"})
	check("web nodes", names(web.Nodes, node), []string{"node-1", "node-2"})
	if api.Nodes[0] == web.Nodes[0] {
		t.Error("the scenarios share a Node: each must have its own copy")
	}

	// Objects claimed by none are named by every CloneSet of their namespace
	// (and the pod of namespace "other", which has no CloneSet, by every
	// CloneSet), with that CloneSet's reason; the pod both selectors match
	// by both, with the claimants.
	for _, s := range scns {
		sa := setAside(s)
		want := map[string]string{
			"Pod both":                        "claimed by CloneSets prod/api and prod/web (an orphan pod their selectors all match; which one adopts it is a race between their reconciles)",
			"Pod ghost-1":                     "controlled by CloneSet ghost",
			"Pod rs-1":                        "controlled by ReplicaSet rs",
			"Pod stray":                       "orphan pod not matched by the CloneSet's selector",
			"Pod elsewhere":                   `in namespace "other", the CloneSet is in "prod"`,
			"PersistentVolumeClaim data-both": "controlled by Pod both",
			"PersistentVolumeClaim loose":     "no controller owner reference",
			"ControllerRevision sts-rev":      "controlled by StatefulSet db",
		}
		if !reflect.DeepEqual(sa, want) {
			t.Errorf("%s: SetAside\n got %v\nwant %v", s.CloneSet.Name, sa, want)
		}
	}

	// The Scenario document applies to every CloneSet.
	for _, s := range scns {
		if s.Now.Format("15:04:05") != "01:00:00" || !s.Gates.CloneSetShortHash {
			t.Errorf("%s: now %v, gates %+v", s.CloneSet.Name, s.Now, s.Gates)
		}
	}
}

// TestLoadAllDeterministic plans a namespace dump in many orders of its
// documents: every order gives the same plans.
func TestLoadAllDeterministic(t *testing.T) {
	docs := namespaceDump()
	plans := func(docs []string) string {
		t.Helper()
		scns, err := manifest.LoadAllBytes([]byte(stream(docs...)), "dump.yaml")
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		for _, s := range scns {
			p, err := clonesetcore.Plan(s)
			if err != nil {
				t.Fatal(err)
			}
			j, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		return b.String()
	}
	want := plans(docs)
	if !strings.Contains(want, "race between their reconciles") {
		t.Fatalf("the double claim is not in the notes:\n%s", want)
	}
	rng := rand.New(rand.NewPCG(21, 21))
	for i := 0; i < 40; i++ {
		shuffled := slices.Clone(docs)
		rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		if got := plans(shuffled); got != want {
			t.Fatalf("order %d gives other plans:\n%s\nwant\n%s", i, got, want)
		}
	}
	// One v1 List holding every object (kubectl's form) gives them too.
	var list strings.Builder
	list.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for _, d := range docs {
		for i, line := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
			if i == 0 {
				list.WriteString("- " + line + "\n")
			} else {
				list.WriteString("  " + line + "\n")
			}
		}
	}
	if got := plans([]string{list.String()}); got != want {
		t.Fatalf("as one List:\n%s\nwant\n%s", got, want)
	}
}

// TestLoadAllOwnerAbsent: pods of a CloneSet that is not in the stream are
// claimed by none, whatever their labels; an owner reference without uid
// designates a CloneSet by name.
func TestLoadAllOwnerAbsent(t *testing.T) {
	in := stream(
		splitCloneSet("prod", "a", "app=x", 1),
		splitCloneSet("prod", "b", "app=y", 1),
		splitPod("prod", "gone-1", "CloneSet/gone", "app=x"),
		strings.Replace(splitPod("prod", "b-1", "CloneSet/b", "app=y"), "uid: uid-b,", "", 1),
	)
	scns, err := manifest.LoadAllBytes([]byte(in), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, b := scns[0], scns[1]
	if len(a.Pods) != 0 || setAside(a)["Pod gone-1"] != "controlled by CloneSet gone" {
		t.Errorf("a: pods %d, set aside %v", len(a.Pods), setAside(a))
	}
	if len(b.Pods) != 1 || b.Pods[0].Name != "b-1" {
		t.Errorf("b: pods %v", b.Pods)
	}
	if _, ok := setAside(b)["Pod b-1"]; ok {
		t.Error("a pod claimed by b is named in b's notes")
	}
	if _, ok := setAside(a)["Pod b-1"]; ok {
		t.Error("a pod claimed by b is named in a's notes")
	}
}

// TestLoadAllOneCloneSetIsLoad: for every single-CloneSet scenario of the
// golden corpus, LoadAll gives exactly Load's scenario.
func TestLoadAllOneCloneSetIsLoad(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../testdata/scenarios", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		all, errAll := manifest.LoadAllBytes(data, path)
		if strings.Count(string(data), "kind: CloneSet\n") > 1 {
			return nil // many CloneSets: TestLoadAll* and the CLI goldens
		}
		one, errOne := manifest.LoadBytes(data, path)
		if errOne != nil || errAll != nil {
			t.Errorf("%s: Load %v, LoadAll %v", path, errOne, errAll)
			return nil
		}
		if len(all) != 1 || !reflect.DeepEqual(all[0], one) {
			t.Errorf("%s: LoadAll differs from Load", path)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("only %d scenarios compared", n)
	}
	// Errors are Load's too.
	for _, in := range []string{"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n", "{"} {
		_, e1 := manifest.LoadBytes([]byte(in), "x.yaml")
		_, e2 := manifest.LoadAllBytes([]byte(in), "x.yaml")
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
			t.Errorf("%q: Load %v, LoadAll %v", in, e1, e2)
		}
	}
}

func TestLoadAllBadInput(t *testing.T) {
	scenarioDoc := "apiVersion: clonesetcore/v1alpha1\nkind: Scenario\n"
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"same name", stream(splitCloneSet("prod", "a", "app=x", 1), splitCloneSet("prod", "a", "app=y", 1)),
			[]string{"CloneSet prod/a: metadata.name: Duplicate value"}},
		{"same uid", stream(splitCloneSet("prod", "a", "app=x", 1), strings.Replace(splitCloneSet("prod", "b", "app=y", 1), "uid-b", "uid-a", 1)),
			[]string{"CloneSet prod/b: metadata.uid: Duplicate value", `"uid-a" is also the uid of CloneSet prod/a`}},
		{"two Scenario documents", stream(splitCloneSet("prod", "a", "app=x", 1), splitCloneSet("prod", "b", "app=y", 1), scenarioDoc, scenarioDoc),
			[]string{"2 Scenario documents in the input"}},
		{"invalid second CloneSet", stream(splitCloneSet("prod", "a", "app=x", 1), splitCloneSet("prod", "b", "app=y", -1)),
			[]string{"s.yaml:15: CloneSet prod/b: spec.replicas: Invalid value: -1"}},
		{"duplicate pods", stream(splitCloneSet("prod", "a", "app=x", 1), splitCloneSet("prod", "b", "app=y", 1), splitPod("prod", "p", "", "app=x"), splitPod("prod", "p", "", "app=y")),
			[]string{"Pod prod/p: metadata.name: Duplicate value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := manifest.LoadAllBytes([]byte(c.in), "s.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestLoadAllNamespaces: objects without a namespace are in the CloneSets'
// namespace when they share one, else in "default"; CloneSets of two
// namespaces each claim only their own.
func TestLoadAllNamespaces(t *testing.T) {
	in := stream(
		splitCloneSet("a", "x", "app=x", 1),
		strings.Replace(splitCloneSet("b", "x", "app=x", 1), "uid-x", "uid-bx", 1),
		splitPod("a", "pa", "", "app=x"),
		splitPod("b", "pb", "", "app=x"),
		splitPod("", "pn", "", "app=x"),
	)
	scns, err := manifest.LoadAllBytes([]byte(in), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(scns[0].Pods) != 1 || scns[0].Pods[0].Name != "pa" || len(scns[1].Pods) != 1 || scns[1].Pods[0].Name != "pb" {
		t.Errorf("pods: a %v, b %v", scns[0].Pods, scns[1].Pods)
	}
	// pn is in "default", which has no CloneSet: both name it.
	for _, s := range scns {
		if r := setAside(s)["Pod pn"]; !strings.Contains(r, `in namespace "default"`) {
			t.Errorf("%s/%s: pn: %q", s.CloneSet.Namespace, s.CloneSet.Name, r)
		}
		if len(s.SetAside) != 1 {
			t.Errorf("%s: set aside %v (objects of a namespace with its own CloneSet are named there only)", s.CloneSet.Namespace, s.SetAside)
		}
	}

	same := stream(splitCloneSet("prod", "x", "app=x", 1), splitCloneSet("prod", "y", "app=y", 1), splitPod("", "pn", "", "app=y"))
	scns, err = manifest.LoadAllBytes([]byte(same), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(scns[1].Pods) != 1 || scns[1].Pods[0].Namespace != "prod" {
		t.Errorf("a pod without namespace is not in the CloneSets' namespace: %v", scns[1].Pods)
	}
}

func TestLoadAllFiles(t *testing.T) {
	dir := t.TempDir()
	f1 := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(f1, []byte(splitCloneSet("prod", "a", "app=x", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	scns, err := manifest.LoadAllFiles([]string{f1, "-"}, strings.NewReader(splitCloneSet("prod", "b", "app=y", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(scns) != 2 || scns[0].CloneSet.Name != "a" || scns[1].CloneSet.Name != "b" {
		t.Errorf("scenarios %v", scns)
	}
	if _, err := manifest.LoadAllFiles(nil, nil); err == nil {
		t.Error("no files: no error")
	}
	if _, err := (manifest.Options{}).LoadAll(errReaderAll{}, "r"); err == nil || !strings.Contains(err.Error(), "r: boom") {
		t.Errorf("read error: %v", err)
	}
}

type errReaderAll struct{}

func (errReaderAll) Read([]byte) (int, error) { return 0, fmt.Errorf("boom") }

// FuzzLoadAll checks that no input makes LoadAll panic and that what loads is
// consistent: CloneSets in namespace/name order, each pod, PVC and revision
// given to one CloneSet at most, and never both given and set aside.
func FuzzLoadAll(f *testing.F) {
	f.Add([]byte(stream(namespaceDump()...)))
	f.Add([]byte(stream(splitCloneSet("a", "x", "app=x", 1), splitCloneSet("b", "x", "app=x", 1), splitPod("", "p", "", "app=x"))))
	if data, err := os.ReadFile("../testdata/scenarios/namespace/prod-dump.yaml"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scns, err := manifest.LoadAllBytes(data, "fuzz.yaml")
		if err != nil {
			if scns != nil {
				t.Fatalf("scenarios and error: %v", err)
			}
			return
		}
		given := map[string]string{}
		for i, s := range scns {
			name := s.CloneSet.Namespace + "/" + s.CloneSet.Name
			if i > 0 {
				prev := scns[i-1].CloneSet
				if prev.Namespace+"/"+prev.Name >= name {
					t.Fatalf("order: %s/%s before %s", prev.Namespace, prev.Name, name)
				}
			}
			mark := func(key string) {
				if other, ok := given[key]; ok {
					t.Fatalf("%s given to %s and %s", key, other, name)
				}
				given[key] = name
			}
			for _, p := range s.Pods {
				mark("Pod " + p.Namespace + "/" + p.Name)
			}
			for _, c := range s.PVCs {
				mark("PersistentVolumeClaim " + c.Namespace + "/" + c.Name)
			}
			if len(scns) > 1 {
				for _, r := range s.Revisions {
					mark("ControllerRevision " + s.CloneSet.Namespace + "/" + r.Name)
				}
			}
		}
		for _, s := range scns {
			for _, a := range s.SetAside {
				if len(scns) > 1 && given[a.Kind+" "+s.CloneSet.Namespace+"/"+a.Name] != "" {
					t.Fatalf("%s %s both given to %s and set aside by %s/%s", a.Kind, a.Name, given[a.Kind+" "+s.CloneSet.Namespace+"/"+a.Name], s.CloneSet.Namespace, s.CloneSet.Name)
				}
			}
		}
	})
}
