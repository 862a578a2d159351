package manifest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/worldgen"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// fataler is what the helpers need of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// planJSON is the plan of a scenario as the CLI prints it.
func planJSON(t fataler, s *model.Scenario) []byte {
	t.Helper()
	p, err := clonesetcore.Plan(s)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	b, err := p.JSON()
	if err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	return b
}

// sameScenario compares two scenarios field by field (quantities by text and
// value, empty and absent collections alike; set-aside names are not
// objects and are not encoded).
func sameScenario(a, b *model.Scenario) string {
	return cmp.Diff(a, b,
		cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(model.Scenario{}, "SetAside"),
		cmp.Comparer(func(x, y model.Quantity) bool { return x.String() == y.String() && x.Cmp(y) == 0 }),
	)
}

// checkRoundTrip encodes s both ways, loads it back, and wants the same
// objects and, byte for byte, the same plan. With deep set, the objects are
// compared field by field (slow); otherwise through their encoding, which
// holds every field the loader reads.
func checkRoundTrip(t fataler, s *model.Scenario, name string, deep bool) {
	t.Helper()
	want := planJSON(t, s)
	encoded, err := manifest.EncodeJSON(s)
	if err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	for _, enc := range []struct {
		ext string
		fn  func(*model.Scenario) ([]byte, error)
	}{{"json", manifest.EncodeJSON}, {"yaml", manifest.EncodeYAML}} {
		data, err := enc.fn(s)
		if err != nil {
			t.Fatalf("%s: encode %s: %v", name, enc.ext, err)
		}
		back, err := manifest.LoadBytes(data, name+"."+enc.ext)
		if err != nil {
			t.Fatalf("%s: load %s: %v", name, enc.ext, err)
		}
		if deep {
			if d := sameScenario(s, back); d != "" {
				t.Fatalf("%s: %s round trip changed the scenario (-before +after):\n%s", name, enc.ext, d)
			}
		} else if again, err := manifest.EncodeJSON(back); err != nil || !bytes.Equal(again, encoded) {
			t.Fatalf("%s: %s round trip changed the scenario (%v)", name, enc.ext, err)
		}
		if got := planJSON(t, back); !bytes.Equal(got, want) {
			t.Fatalf("%s: %s round trip changed the plan:\nbefore:\n%s\nafter:\n%s", name, enc.ext, want, got)
		}
	}
}

func TestEncodeRoundTripWorldgen(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		checkRoundTrip(t, worldgen.Realistic(seed, 25), "realistic", true)
		checkRoundTrip(t, worldgen.ScaleIn(seed, 25), "scaleIn", seed == 1)
		checkRoundTrip(t, worldgen.Update(seed, 25), "update", seed == 1)
	}
	o := worldgen.RealisticOptions(9, 30)
	o.APIVersion = model.APIVersionV1alpha1
	o.StalePodsToDelete = 0
	o.PVCReuse = true
	checkRoundTrip(t, worldgen.Generate(o), "v1alpha1", true)
}

// Random worlds of every shape survive the round trip.
func TestEncodeRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		o := worldgen.RealisticOptions(rapid.Int64().Draw(rt, "seed"), rapid.IntRange(0, 12).Draw(rt, "pods"))
		if rapid.Bool().Draw(rt, "alpha") {
			o.APIVersion = model.APIVersionV1alpha1
			o.StalePodsToDelete = 0
		}
		o.Rollout = rapid.Bool().Draw(rt, "rollout")
		o.Hooks = rapid.Bool().Draw(rt, "hooks")
		o.Policy = rapid.SampledFrom([]string{model.PolicyReCreate, model.PolicyInPlaceIfPossible}).Draw(rt, "policy")
		o.VolumeClaimTemplates = rapid.IntRange(0, 2).Draw(rt, "vcts")
		o.PVCReuse = rapid.Bool().Draw(rt, "reuse")
		o.Terminating = rapid.IntRange(0, 3).Draw(rt, "terminating")
		o.UpdatePriority = rapid.Bool().Draw(rt, "priority")
		if rapid.Bool().Draw(rt, "gates") {
			g := model.FeatureGates{CloneSetPartitionRollback: true, PreparingUpdateAsUpdate: true, CloneSetShortHash: true}
			o.Gates = &g
		}
		checkRoundTrip(rt, worldgen.Generate(o), "world", false)
	})
}

// Scenarios read from the repository's manifests survive the round trip too
// (those without set-aside objects, which are not encoded).
func TestEncodeRoundTripTestdata(t *testing.T) {
	files, _ := filepath.Glob("../testdata/manifests/*.yaml")
	conf, _ := filepath.Glob("../testdata/conformance/*/*.yaml")
	for i, f := range conf {
		if i%7 == 0 {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Skip("no testdata")
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := manifest.LoadBytes(data, f)
		if err != nil || len(s.SetAside) > 0 {
			continue
		}
		checkRoundTrip(t, s, strings.TrimPrefix(f, "../"), false)
		checked++
	}
	if checked < len(files)/2 {
		t.Errorf("only %d of %d files checked", checked, len(files))
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := manifest.EncodeJSON(nil); err == nil {
		t.Error("EncodeJSON(nil): no error")
	}
	if _, err := manifest.EncodeYAML(&model.Scenario{}); err == nil {
		t.Error("EncodeYAML without a CloneSet: no error")
	}
}

// The JSON stream has one document a line, the YAML stream the same
// documents separated by "---".
func TestEncodeShape(t *testing.T) {
	s := worldgen.Realistic(1, 3)
	j, err := manifest.EncodeJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	docs := 2 + len(s.Revisions) + len(s.Nodes) + len(s.Pods) + len(s.PVCs)
	if n := bytes.Count(j, []byte("\n")); n != docs {
		t.Errorf("JSON: %d lines, want %d documents", n, docs)
	}
	y, err := manifest.EncodeYAML(s)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(y), "\n---\n") + 1; n != docs {
		t.Errorf("YAML: %d documents, want %d", n, docs)
	}
	if !strings.HasPrefix(string(y), "apiVersion: clonesetcore/v1alpha1\nkind: Scenario\n") {
		t.Errorf("YAML starts with %q", string(y[:60]))
	}
}

// A pod's launch barrier env (valueFrom.configMapKeyRef, which OpenKruise's
// pod webhook injects) is read and written back.
func TestEncodeRoundTripLaunchBarrier(t *testing.T) {
	world := `apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-01-01T01:00:00Z"
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: prod, uid: uid-web, generation: 1}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: main, image: "nginx:1", env: [{name: KRUISE_CONTAINER_PRIORITY, value: "10"}]}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-a
  namespace: prod
  uid: uid-web-a
  labels: {app: web, apps.kruise.io/cloneset-instance-id: a}
  ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: uid-web, controller: true}]
spec:
  containers:
  - name: main
    image: "nginx:1"
    env:
    - {name: KRUISE_CONTAINER_PRIORITY, value: "10"}
    - {name: KRUISE_CONTAINER_BARRIER, valueFrom: {configMapKeyRef: {name: web-a-barrier, key: p_10}}}
`
	s, err := manifest.LoadBytes([]byte(world), "barrier.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := model.EnvVar{Name: model.EnvLaunchBarrier, ConfigMapName: "web-a-barrier", ConfigMapKey: "p_10"}
	if got := s.Pods[0].Spec.Containers[0].Env[1]; got != want {
		t.Fatalf("barrier env read as %+v, want %+v", got, want)
	}
	if p, ok, err := s.Pods[0].Spec.Containers[0].LaunchPriority(); p != 10 || !ok || err != nil {
		t.Errorf("LaunchPriority = %d, %v, %v; want 10", p, ok, err)
	}
	checkRoundTrip(t, s, "barrier", true)
}
