package installtest

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/internal/admissionrecord"
	"github.com/clonecore/cloneset/internal/cisummary"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// recordDir is the record of what OpenKruise's webhooks make of 100
// CloneSets (its README says how to compare).
const recordDir = "../../../testdata/conformance-admission"

// comparable is an object as the record's README compares it
// (admissionrecord.Comparable), the API server's own metadata dropped
// first: uid, resourceVersion, generation, managedFields (no user writes
// them), and the namespace (each world is created in a namespace of the
// test's).
func comparable(obj map[string]any) any {
	c := maps.Clone(obj)
	if md, ok := c["metadata"].(map[string]any); ok {
		md = maps.Clone(md)
		for _, f := range []string{"uid", "resourceVersion", "generation", "managedFields", "namespace"} {
			delete(md, f)
		}
		c["metadata"] = md
	}
	return admissionrecord.Comparable(c)
}

// firstDifference names the first path where a and b differ ("" when
// they are equal).
func firstDifference(path string, a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v, want %v", path, a, b)
		}
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			if d := firstDifference(path+"."+k, a[k], bm[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return fmt.Sprintf("%s: %v, want %v", path, a, b)
		}
		for i := range a {
			if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), a[i], bl[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v, want %v", path, a, b)
	}
	return ""
}

// TestAdmissionOnKubeAPIServer creates the 100 CloneSets of
// testdata/conformance-admission through kube-apiserver, each in a
// namespace of its own, with the binary's webhooks installed as the
// manifests install them: a world the record refuses must be refused, by
// the validating webhook, naming exactly the record's fields and types
// (pod template refusals included); an accepted one, read back in its
// version, must be the record's defaulted object, and read in the other
// version (the conversion webhook) the record's converted one, compared as
// the record's README says. It prints
//
//	admission on kube-apiserver v1.37.2: N/100
func TestAdmissionOnKubeAPIServer(t *testing.T) {
	sys := sharedSystem(t)
	ctx := t.Context()
	start := time.Now()
	startController(t, sys)
	entries, err := admissionrecord.Read(recordDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 100 {
		t.Fatalf("%d worlds in the record, want 100", len(entries))
	}
	dyn := dynamic.NewForConfigOrDie(sys.ControlPlane.Config())
	agree, refusals, refusalsAgree, templateRefusals, templateAgree := 0, 0, 0, 0, 0
	for _, e := range entries {
		world, err := os.ReadFile(filepath.Join(recordDir, "worlds", e.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		obj, err := admissionrecord.DecodeJSON(world)
		if err != nil {
			t.Fatalf("world %s: %v", e.ID, err)
		}
		ns := fmt.Sprintf("admission-%s-%d", e.ID, time.Now().UnixNano()%100000)
		if _, err := sys.ControlPlane.Clientset().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetNamespace(ns)
		version := strings.TrimPrefix(u.GetAPIVersion(), "apps.kruise.io/")
		other := map[string]string{"v1alpha1": "v1beta1", "v1beta1": "v1alpha1"}[version]
		template := false
		var want []string
		for _, re := range e.Errors {
			want = append(want, re.Field+" "+re.Type)
			template = template || strings.HasPrefix(re.Field, "spec.template.spec.")
		}
		slices.Sort(want)
		if len(want) > 0 {
			refusals++
		}
		if template {
			templateRefusals++
		}
		ok := func() bool {
			_, err := dyn.Resource(resource(version)).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
			if len(want) > 0 {
				got, err := refusedFields(err)
				if err != nil {
					t.Errorf("world %s (%s): %v; the record refuses %q", e.ID, version, err, want)
					return false
				}
				if !slices.Equal(got, want) {
					t.Errorf("world %s (%s): refused %q, the record %q", e.ID, version, got, want)
					return false
				}
				return true
			}
			if err != nil {
				t.Errorf("world %s (%s): refused: %v; the record accepts it", e.ID, version, err)
				return false
			}
			for _, read := range []struct {
				version string
				record  map[string]any
				what    string
			}{{version, e.Defaulted, "defaulted"}, {other, e.Converted, "converted"}} {
				got, err := dyn.Resource(resource(read.version)).Namespace(ns).Get(ctx, u.GetName(), metav1.GetOptions{})
				if err != nil {
					t.Errorf("world %s: read as %s: %v", e.ID, read.version, err)
					return false
				}
				if d := firstDifference("", comparable(got.Object), comparable(read.record)); d != "" {
					t.Errorf("world %s (%s): read as %s, not the record's %s object: %s", e.ID, version, read.version, read.what, d)
					return false
				}
			}
			return true
		}()
		if ok {
			agree++
			if len(want) > 0 {
				refusalsAgree++
			}
			if template {
				templateAgree++
			}
		}
	}
	cisummary.Print(t, fmt.Sprintf("admission on kube-apiserver %s: %d/%d", sys.ControlPlane.Version().GitVersion, agree, len(entries)))
	t.Logf("refusals %d/%d (pod template refusals %d/%d)", refusalsAgree, refusals, templateAgree, templateRefusals)
	forbidden, err := sys.Forbidden(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range forbidden {
		t.Errorf("forbidden: %s", Describe(ev))
	}
}

// refusedFields reads the fields and types a refusal names (the causes
// of kube-apiserver's Invalid status, which carries the webhook's); an
// error when err is not such a refusal.
func refusedFields(err error) ([]string, error) {
	if err == nil {
		return nil, errors.New("accepted")
	}
	var status *apierrors.StatusError
	if !errors.As(err, &status) || !apierrors.IsInvalid(err) || status.ErrStatus.Details == nil {
		return nil, fmt.Errorf("not a refusal naming fields: %v", err)
	}
	var out []string
	for _, c := range status.ErrStatus.Details.Causes {
		// The API server's own check of the scale subresource's replicas
		// (negative replicas) answers before the validating webhook and
		// spells the path as the subresource's JSON path: .spec.replicas.
		out = append(out, strings.TrimPrefix(c.Field, ".")+" "+string(c.Type))
	}
	slices.Sort(out)
	return out, nil
}
