package webhook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/internal/admissionrecord"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// recordDir is the record of what OpenKruise's webhooks make of 100
// CloneSets (README there).
const recordDir = "../../../testdata/conformance-admission"

// readRecord reads the record's lines, in order.
func readRecord(t *testing.T) []admissionrecord.Line {
	t.Helper()
	lines, err := admissionrecord.Read(recordDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 100 {
		t.Fatalf("%d worlds in the record, want 100", len(lines))
	}
	return lines
}

// refusedFields are the sorted "field type" pairs of refusals.
func refusedFields(errs field.ErrorList) []string {
	var out []string
	for _, fe := range errs {
		out = append(out, fe.Field+" "+string(fe.Type))
	}
	slices.Sort(out)
	return out
}

// recordFields are the sorted "field type" pairs of the record's
// refusals, and whether one is of the pod template's spec.
func recordFields(l admissionrecord.Line) (fields []string, template bool) {
	for _, re := range l.Errors {
		fields = append(fields, re.Field+" "+re.Type)
		template = template || strings.HasPrefix(re.Field, "spec.template.spec.")
	}
	slices.Sort(fields)
	return fields, template
}

// TestLibraryRulesVerdicts: the webhooks on each world of the record as
// kube-apiserver sends it, the mutating webhook's create and then the
// validating webhook's on what it left: the object defaulted is the
// record's (compared as its README says), and the verdict refuses exactly
// the fields the record's refusals name (field path and type), the pod
// template's refusals from Kubernetes' own validation included. The
// verdict is checked on the record's own defaulted object too (the
// validating webhook alone).
func TestLibraryRulesVerdicts(t *testing.T) {
	rules := &LibraryRules{}
	ctx := context.Background()
	agree, templateRefusals, templateAgree := 0, 0, 0
	for _, l := range readRecord(t) {
		world, err := os.ReadFile(filepath.Join(recordDir, "worlds", l.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		review := Review{Operation: admissionv1.Create, Version: l.Version, Namespace: "default", Name: "x", Object: world}
		defaulted, changed, err := rules.Default(ctx, review)
		if err != nil {
			t.Errorf("world %s: default: %v", l.ID, err)
			continue
		}
		if !changed {
			defaulted = world
		}
		got, err := admissionrecord.DecodeJSON(defaulted)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(admissionrecord.Comparable(got), admissionrecord.Comparable(l.Defaulted)) {
			t.Errorf("world %s (%s): defaulted is not the record's", l.ID, l.Version)
			continue
		}
		want, template := recordFields(l)
		if template {
			templateRefusals++
		}
		ok := true
		recordDefaulted, err := json.Marshal(l.Defaulted)
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range [][]byte{defaulted, recordDefaulted} {
			review.Object = obj
			errs, err := rules.Validate(ctx, review)
			if err != nil {
				t.Errorf("world %s: validate: %v", l.ID, err)
				ok = false
				break
			}
			if got := refusedFields(errs); !slices.Equal(got, want) {
				t.Errorf("world %s (%s): refused %q, the record %q", l.ID, l.Version, got, want)
				ok = false
				break
			}
		}
		if ok {
			agree++
			if template {
				templateAgree++
			}
		}
	}
	t.Logf("webhook verdicts (library and Kubernetes' template validation): %d/100 (pod template refusals %d/%d)", agree, templateAgree, templateRefusals)
}

// editedWorld returns the record's defaulted object of the first accepted
// v1beta1 world with its pod template edited.
func editedWorld(t *testing.T, edit func(spec map[string]any)) []byte {
	t.Helper()
	for _, l := range readRecord(t) {
		if len(l.Errors) > 0 || l.Version != "v1beta1" {
			continue
		}
		data, err := json.Marshal(l.Defaulted)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := decodeTree(data)
		if err != nil {
			t.Fatal(err)
		}
		edit(tree["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any))
		out, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	t.Fatal("no accepted v1beta1 world")
	return nil
}

// TestKubernetesTemplateValidation: what Kubernetes' validation of the
// template refuses and the library does not check is refused too (a DNS
// policy it does not know, a port out of range), each field once when both
// refuse it, and not on a delete.
func TestKubernetesTemplateValidation(t *testing.T) {
	rules := &LibraryRules{}
	ctx := context.Background()
	firstContainer := func(spec map[string]any) map[string]any { return spec["containers"].([]any)[0].(map[string]any) }
	for name, tc := range map[string]struct {
		edit func(spec map[string]any)
		want []string
	}{
		"unknown DNS policy": {func(spec map[string]any) { spec["dnsPolicy"] = "Sometimes" }, []string{"spec.template.spec.dnsPolicy FieldValueNotSupported"}},
		"port out of range": {func(spec map[string]any) {
			firstContainer(spec)["ports"] = []any{map[string]any{"containerPort": json.Number("70000"), "protocol": "TCP"}}
		}, []string{"spec.template.spec.containers[0].ports[0].containerPort FieldValueInvalid"}},
		"duplicate volume": {func(spec map[string]any) {
			spec["volumes"] = []any{map[string]any{"name": "v", "emptyDir": map[string]any{}}, map[string]any{"name": "v", "emptyDir": map[string]any{}}}
			delete(firstContainer(spec), "volumeMounts")
		}, []string{"spec.template.spec.volumes[1].name FieldValueDuplicate"}},
	} {
		t.Run(name, func(t *testing.T) {
			obj := editedWorld(t, tc.edit)
			errs, err := rules.Validate(ctx, Review{Operation: admissionv1.Create, Version: "v1beta1", Namespace: "default", Name: "x", Object: obj})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Field+" "+string(e.Type))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("refused %q, want %q", got, tc.want)
			}
			errs, err = rules.Validate(ctx, Review{Operation: admissionv1.Delete, Version: "v1beta1", Namespace: "default", Name: "x", OldObject: obj})
			if err != nil || len(errs) > 0 {
				t.Errorf("delete: %v %v, want admitted", errs, err)
			}
		})
	}
}
