package inplace

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// drawValue draws a JSON-like value, biased towards template-shaped members.
func drawValue(t *rapid.T, depth int, label string) any {
	kinds := []string{"string", "number", "bool", "null"}
	if depth > 0 {
		kinds = append(kinds, "object", "object", "array", "array")
	}
	switch rapid.SampledFrom(kinds).Draw(t, label+"Kind") {
	case "string":
		return rapid.SampledFrom([]string{"", "1", "2", "nginx:1", "nginx:2", "main", "side", "1Gi"}).Draw(t, label+"Str")
	case "number":
		return json.Number(rapid.SampledFrom([]string{"0", "1", "2", "1.0", "1e3"}).Draw(t, label+"Num"))
	case "bool":
		return rapid.Bool().Draw(t, label+"Bool")
	case "null":
		return nil
	case "object":
		m := map[string]any{}
		n := rapid.IntRange(0, 3).Draw(t, label+"Len")
		for i := 0; i < n; i++ {
			k := rapid.SampledFrom([]string{"metadata", "spec", "labels", "containers", "image", "name", "resources",
				"limits", "requests", "cpu", "memory", "env", "valueFrom", "fieldRef", "fieldPath", "value", "x"}).Draw(t, label+"Key")
			m[k] = drawValue(t, depth-1, label+"."+k)
		}
		return m
	default:
		n := rapid.IntRange(0, 3).Draw(t, label+"Len")
		l := make([]any, n)
		for i := range l {
			l[i] = drawValue(t, depth-1, fmt.Sprintf("%s[%d]", label, i))
		}
		return l
	}
}

func drawTemplate(t *rapid.T, label string) map[string]any {
	m, ok := drawValue(t, 5, label).(map[string]any)
	if !ok {
		return map[string]any{}
	}
	return m
}

// TestPropertyCalculateTotal: Calculate never panics, gives a reason exactly when
// infeasible, finds no difference between a template and itself, and does not
// depend on the order of the arguments' maps (same inputs, same output).
func TestPropertyCalculateTotal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := drawTemplate(t, "old"), drawTemplate(t, "new")
		opts := Options{Policy: rapid.SampledFrom([]string{model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly}).Draw(t, "policy"),
			Gates: model.FeatureGates{InPlaceWorkloadVerticalScaling: rapid.Bool().Draw(t, "vertical"),
				InPlaceUpdateEnvFromMetadata: rapid.Bool().Draw(t, "env")}}
		s := Calculate(rev("o", 1, a, nil), rev("n", 2, b, nil), opts)
		if s.Feasible == (s.Reason != "") {
			t.Fatalf("feasible %v with reason %q", s.Feasible, s.Reason)
		}
		again := Calculate(rev("o", 1, a, nil), rev("n", 2, b, nil), opts)
		if s.Summary() != again.Summary() || s.Reason != again.Reason {
			t.Fatalf("not deterministic: %q vs %q", s.Summary(), again.Summary())
		}
		self := Calculate(rev("o", 1, a, nil), rev("o2", 2, deepCopy(a).(map[string]any), nil), opts)
		if !self.Feasible || self.MetadataChanged || len(self.Images) != 0 || len(self.Resources) != 0 {
			t.Fatalf("template differs from itself: %+v", self)
		}
	})
}

// TestPropertyAnnotationsNeverPanic: arbitrary annotation text makes Completed and
// Refresh return errors, never panic; an error comes without actions.
func TestPropertyAnnotationsNeverPanic(t *testing.T) {
	texts := []string{"", "{", "null", "[]", "3", `{"revision":"web-2"}`, `{"revision":1}`,
		`{"revision":"web-2","updateTimestamp":"2026-01-01T12:00:00Z","graceSeconds":5}`,
		`{"revision":"web-2","updateTimestamp":"bad"}`, `{"revision":"web-2","metaDataPatch":"e30="}`,
		`{"revision":"web-2","metaDataPatch":{"metadata":{"labels":{"a":null}}}}`,
		`{"revision":"web-2","nextContainerImages":{"main":"x"},"preCheckBeforeNext":{"containersRequiredReady":["main"]}}`,
		`{"containers":[{"name":"main","containerID":"c1"}]}`, `{"revision":"web-2","updateEnvFromMetadata":true}`}
	keys := []string{model.AnnotationInPlaceUpdateState, model.AnnotationInPlaceUpdateStateLegacy,
		model.AnnotationInPlaceUpdateGrace, model.AnnotationInPlaceUpdateGraceLegacy, model.AnnotationRuntimeContainersMeta}
	rapid.Check(t, func(t *rapid.T) {
		p := updatingPod("")
		if rapid.Bool().Draw(t, "gate") {
			p.Spec.ReadinessGates = []string{model.ConditionInPlaceUpdateReady}
		}
		for _, k := range keys {
			if rapid.Bool().Draw(t, "has "+k) {
				p.Annotations[k] = rapid.SampledFrom(texts).Draw(t, k)
			}
		}
		gates := model.FeatureGates{InPlaceWorkloadVerticalScaling: rapid.Bool().Draw(t, "vertical")}
		if done, err := Completed(p, gates); err != nil && done {
			t.Fatalf("completed with an error")
		}
		acts, d, err := Refresh(p, gates, time.Date(2026, 1, 1, 12, 0, rapid.IntRange(0, 20).Draw(t, "sec"), 0, time.UTC))
		if err != nil && (acts != nil || d != 0) {
			t.Fatalf("error with results: %v %v %v", acts, d, err)
		}
		if len(acts) > 1 || (len(acts) == 1 && d != 0) {
			t.Fatalf("actions %v and requeue %v", acts, d)
		}
		for _, a := range acts {
			if _, err := json.Marshal(a); err != nil || a.Type != model.ActionPatchPod || a.Reason == "" {
				t.Fatalf("bad action %+v: %v", a, err)
			}
		}
	})
}
