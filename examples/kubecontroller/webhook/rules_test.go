package webhook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// recordDir is the record of what OpenKruise's webhooks make of 100
// CloneSets (README there).
const recordDir = "../../../testdata/conformance-admission"

// recordEntry is one line of the record's oracle.jsonl.
type recordEntry struct {
	ID        string          `json:"id"`
	Version   string          `json:"version"`
	Defaulted json.RawMessage `json:"defaulted"`
	Converted json.RawMessage `json:"converted"`
	Errors    []struct {
		Field  string `json:"field"`
		Type   string `json:"type"`
		Detail string `json:"detail"`
	} `json:"errors"`
}

// readRecord reads the record: each world's file and its oracle line.
func readRecord(t *testing.T) (worlds [][]byte, entries []recordEntry) {
	t.Helper()
	f, err := os.Open(filepath.Join(recordDir, "oracle.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e recordEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		world, err := os.ReadFile(filepath.Join(recordDir, "worlds", e.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		worlds, entries = append(worlds, world), append(entries, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 100 {
		t.Fatalf("%d worlds in the record, want 100", len(entries))
	}
	return worlds, entries
}

// TestLibraryRulesVerdicts: the webhook's verdict on each world of the
// record, created as OpenKruise's mutating webhook left it (the record's
// defaulted object), refuses exactly the fields the record's refusals name
// (field path and type), the pod template's refusals from Kubernetes' own
// validation included.
func TestLibraryRulesVerdicts(t *testing.T) {
	_, entries := readRecord(t)
	rules := &LibraryRules{}
	ctx := context.Background()
	agree, templateRefusals, templateAgree := 0, 0, 0
	for _, e := range entries {
		version := strings.TrimPrefix(e.Version, Group+"/")
		// The object as OpenKruise's mutating webhook left it: the verdict
		// alone is judged here.
		review := Review{Operation: admissionv1.Create, Version: version, Namespace: "default", Name: "x", Object: e.Defaulted}
		errs, err := rules.Validate(ctx, review)
		if err != nil {
			t.Errorf("world %s: validate: %v", e.ID, err)
			continue
		}
		var got, want []string
		for _, fe := range errs {
			got = append(got, fe.Field+" "+string(fe.Type))
		}
		template := false
		for _, re := range e.Errors {
			want = append(want, re.Field+" "+re.Type)
			template = template || strings.HasPrefix(re.Field, "spec.template.spec.")
		}
		slices.Sort(got)
		slices.Sort(want)
		if template {
			templateRefusals++
		}
		if slices.Equal(got, want) {
			agree++
			if template {
				templateAgree++
			}
			continue
		}
		t.Errorf("world %s (%s): refused %q, the record %q", e.ID, version, got, want)
	}
	fmt.Printf("webhook verdicts (library and Kubernetes' template validation): %d/%d (pod template refusals %d/%d)\n", agree, len(entries), templateAgree, templateRefusals)
}

// editedWorld returns the record's defaulted object of the first accepted
// v1beta1 world with its pod template edited.
func editedWorld(t *testing.T, edit func(spec map[string]any)) []byte {
	t.Helper()
	_, entries := readRecord(t)
	for _, e := range entries {
		if len(e.Errors) > 0 || e.Version != "v1beta1" {
			continue
		}
		tree, err := decodeTree(e.Defaulted)
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
