package admission

import (
	"strings"
	"testing"
)

// TestRequest: the request API reads the objects its operation has, of the
// request's version, and reports whether the defaults changed anything.
func TestRequest(t *testing.T) {
	alpha := []byte(cloneSet(V1alpha1, ""))
	beta := []byte(cloneSet(V1beta1, ""))
	d, _, err := Request{Operation: Create, Object: alpha}.Default()
	if err != nil {
		t.Fatal(err)
	}
	stored := []byte(jsonOf(t, d))
	for _, c := range []struct {
		name string
		req  Request
		want string // an error's text, or "changed"/"unchanged"
	}{
		{"create", Request{Operation: Create, Version: "v1alpha1", Object: alpha}, "changed"},
		{"create of a defaulted object", Request{Operation: Create, Object: stored}, "unchanged"},
		{"update", Request{Operation: Update, Object: stored, OldObject: stored}, "unchanged"},
		{"the version of the request", Request{Operation: Create, Version: "v1beta1", Object: alpha}, "object is apps.kruise.io/v1alpha1, the request is for apps.kruise.io/v1beta1"},
		{"objects of two versions", Request{Operation: Update, Object: alpha, OldObject: beta}, "old object is apps.kruise.io/v1beta1"},
		{"an update without the old object", Request{Operation: Update, Object: alpha}, "without old object"},
		{"a create without the object", Request{Operation: Create}, "without object"},
		{"no mutation on delete", Request{Operation: Delete, OldObject: alpha}, "handles CREATE and UPDATE"},
		{"an unknown version", Request{Operation: Create, Version: "v2", Object: alpha}, `version "v2"`},
		{"an unreadable object", Request{Operation: Create, Object: []byte(cloneSet(V1beta1, `"replicas":"3"`))}, "spec.replicas"},
	} {
		_, changed, err := c.req.Default()
		got := "unchanged"
		switch {
		case err != nil:
			got = err.Error()
		case changed:
			got = "changed"
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	errs, err := Request{Operation: Delete, Options: Options{Gates: Gates{ResourcesDeletionProtection: true}},
		OldObject: []byte(strings.Replace(cloneSet(V1beta1, `"replicas":1`), `"namespace":"default"`, `"namespace":"default","labels":{"policy.kruise.io/delete-protection":"Cascading"}`, 1))}.Validate()
	if err != nil || len(errs) != 1 || errs[0].Rule != RuleDeleteCascading {
		t.Errorf("a protected delete: %v, %v", errs, err)
	}
	if errs, err := (Request{Operation: Delete}).Validate(); err != nil || errs != nil {
		t.Errorf("a delete without the old object: %v, %v", errs, err)
	}
	if _, err := ConvertJSON([]byte(`{}`), V1beta1); err == nil {
		t.Error("ConvertJSON of no CloneSet: no error")
	}
}
