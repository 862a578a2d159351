package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// fakeRules records what it is asked and answers what the test set.
type fakeRules struct {
	defaulted     []byte
	unchanged     bool
	refusals      field.ErrorList
	err           error
	got           Review
	convertedTo   []string
	convertFailOn string // a name whose conversion fails
}

func (f *fakeRules) Default(_ context.Context, r Review) ([]byte, bool, error) {
	f.got = r
	return f.defaulted, !f.unchanged, f.err
}

func (f *fakeRules) Validate(_ context.Context, r Review) (field.ErrorList, error) {
	f.got = r
	return f.refusals, f.err
}

func (f *fakeRules) Convert(obj []byte, apiVersion string) ([]byte, error) {
	f.convertedTo = append(f.convertedTo, apiVersion)
	if f.convertFailOn != "" && bytes.Contains(obj, []byte(f.convertFailOn)) {
		return nil, errors.New("cannot")
	}
	tree, err := decodeTree(obj)
	if err != nil {
		return nil, err
	}
	tree["apiVersion"] = apiVersion
	return json.Marshal(tree)
}

func cloneSetRequest(op admissionv1.Operation, obj, old string) admission.Request {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "u1",
		Kind:      metav1.GroupVersionKind{Group: Group, Version: "v1beta1", Kind: "CloneSet"},
		Resource:  metav1.GroupVersionResource{Group: Group, Version: "v1beta1", Resource: "clonesets"},
		Name:      "web",
		Namespace: "ns",
		Operation: op,
	}}
	if obj != "" {
		req.Object.Raw = []byte(obj)
	}
	if old != "" {
		req.OldObject.Raw = []byte(old)
	}
	return req
}

const (
	cloneSetJSON   = `{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","metadata":{"name":"web","namespace":"ns"},"spec":{"replicas":3}}`
	defaultedJSON  = `{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","metadata":{"name":"web","namespace":"ns"},"spec":{"replicas":3,"revisionHistoryLimit":10}}`
	cloneSetOldJSN = `{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","metadata":{"name":"web","namespace":"ns"},"spec":{"replicas":2}}`
)

func TestMutateCloneSet(t *testing.T) {
	rules := &fakeRules{defaulted: []byte(defaultedJSON)}
	h := &Handlers{Rules: rules, Log: logr.Discard()}
	resp := h.MutateCloneSet(context.Background(), cloneSetRequest(admissionv1.Create, cloneSetJSON, ""))
	if !resp.Allowed || len(resp.Patches) != 1 || resp.Patches[0].Operation != "add" || resp.Patches[0].Path != "/spec/revisionHistoryLimit" {
		t.Errorf("create: allowed %v, patches %+v; want one add of /spec/revisionHistoryLimit", resp.Allowed, resp.Patches)
	}
	if g := rules.got; g.Operation != admissionv1.Create || g.Version != "v1beta1" || g.Namespace != "ns" || g.Name != "web" || string(g.Object) != cloneSetJSON || g.OldObject != nil {
		t.Errorf("create: asked %+v", g)
	}
	h.MutateCloneSet(context.Background(), cloneSetRequest(admissionv1.Update, cloneSetJSON, cloneSetOldJSN))
	if string(rules.got.OldObject) != cloneSetOldJSN {
		t.Errorf("update: old object %s, want the request's", rules.got.OldObject)
	}
	rules.unchanged = true
	if resp := h.MutateCloneSet(context.Background(), cloneSetRequest(admissionv1.Create, cloneSetJSON, "")); !resp.Allowed || len(resp.Patches) != 0 {
		t.Errorf("unchanged: allowed %v, patches %+v (want no patch, as upstream)", resp.Allowed, resp.Patches)
	}
	rules.unchanged = false
	rules.defaulted = []byte(cloneSetJSON)
	if resp := h.MutateCloneSet(context.Background(), cloneSetRequest(admissionv1.Create, cloneSetJSON, "")); !resp.Allowed || len(resp.Patches) != 0 {
		t.Errorf("nothing to default: allowed %v, patches %+v", resp.Allowed, resp.Patches)
	}
	rules.err = errors.New("spec.replicas: not an integer")
	if resp := h.MutateCloneSet(context.Background(), cloneSetRequest(admissionv1.Create, cloneSetJSON, "")); resp.Allowed || resp.Result.Code != http.StatusBadRequest || !strings.Contains(resp.Result.Message, "spec.replicas") {
		t.Errorf("an error: allowed %v, result %+v", resp.Allowed, resp.Result)
	}
	rules.err = nil
	other := cloneSetRequest(admissionv1.Create, cloneSetJSON, "")
	other.Kind.Kind = "StatefulSet"
	rules.got = Review{}
	if resp := h.MutateCloneSet(context.Background(), other); !resp.Allowed || rules.got.Operation != "" {
		t.Errorf("another kind: allowed %v, rules asked %+v", resp.Allowed, rules.got)
	}
}

func TestValidateCloneSet(t *testing.T) {
	refusals := field.ErrorList{
		field.Invalid(field.NewPath("spec", "updateStrategy", "rollingUpdate", "maxUnavailable"), 0, "maxUnavailable and maxSurge should not both be less than 1"),
		field.Duplicate(field.NewPath("spec", "template", "spec", "volumes").Index(2).Child("name"), "data"),
	}
	rules := &fakeRules{refusals: refusals}
	h := &Handlers{Rules: rules, Log: logr.Discard()}
	resp := h.ValidateCloneSet(context.Background(), cloneSetRequest(admissionv1.Create, cloneSetJSON, ""))
	if resp.Allowed || resp.Result.Code != http.StatusUnprocessableEntity || resp.Result.Reason != metav1.StatusReasonInvalid {
		t.Fatalf("refused create: allowed %v, result %+v", resp.Allowed, resp.Result)
	}
	if resp.Result.Message != refusals.ToAggregate().Error() {
		t.Errorf("message %q, want the aggregate %q", resp.Result.Message, refusals.ToAggregate().Error())
	}
	if d := resp.Result.Details; d == nil || len(d.Causes) != 2 || d.Causes[1].Field != "spec.template.spec.volumes[2].name" || d.Causes[1].Type != metav1.CauseTypeFieldValueDuplicate {
		t.Errorf("causes %+v", resp.Result.Details)
	}
	h.ValidateCloneSet(context.Background(), cloneSetRequest(admissionv1.Update, cloneSetJSON, cloneSetOldJSN))
	if string(rules.got.OldObject) != cloneSetOldJSN || rules.got.Operation != admissionv1.Update {
		t.Errorf("update: asked %+v", rules.got)
	}
	resp = h.ValidateCloneSet(context.Background(), cloneSetRequest(admissionv1.Delete, "", cloneSetOldJSN))
	if rules.got.Operation != admissionv1.Delete || string(rules.got.OldObject) != cloneSetOldJSN || resp.Allowed || resp.Result.Code != http.StatusForbidden || resp.Result.Reason != metav1.StatusReasonForbidden {
		t.Errorf("refused delete: asked %+v, allowed %v, result %+v", rules.got, resp.Allowed, resp.Result)
	}
	rules.refusals = nil
	if resp := h.ValidateCloneSet(context.Background(), cloneSetRequest(admissionv1.Create, cloneSetJSON, "")); !resp.Allowed {
		t.Errorf("accepted create refused: %+v", resp.Result)
	}
	rules.got = Review{}
	if resp := h.ValidateCloneSet(context.Background(), cloneSetRequest(admissionv1.Delete, "", "")); !resp.Allowed || rules.got.Operation != "" {
		t.Errorf("a delete without the old object: allowed %v, asked %+v (want allowed, as upstream)", resp.Allowed, rules.got)
	}
}

func podRequest(op admissionv1.Operation, pod string) admission.Request {
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "p1", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
		Operation: op, Namespace: "ns",
	}}
	req.Object.Raw = []byte(pod)
	return req
}

func TestMutatePod(t *testing.T) {
	owner := func(apiVersion string, controller bool) string {
		return `"ownerReferences":[{"apiVersion":"` + apiVersion + `","kind":"X","name":"web","uid":"u","controller":` + map[bool]string{true: "true", false: "false"}[controller] + `}]`
	}
	for name, tc := range map[string]struct {
		op        admissionv1.Operation
		pod       string
		wantPatch string // "op path value" of the one patch, "" for none
	}{
		"CloneSet pod": {admissionv1.Create, `{"metadata":{"name":"web-a",` + owner("apps.kruise.io/v1beta1", true) + `},"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"memory":"123456789012345678901234"}}}]}}`,
			`add /spec/readinessGates [{"conditionType":"KruisePodReady"}]`},
		"other gates": {admissionv1.Create, `{"metadata":{` + owner("apps.kruise.io/v1alpha1", true) + `},"spec":{"readinessGates":[{"conditionType":"InPlaceUpdateReady"}]}}`,
			`add /spec/readinessGates/1 {"conditionType":"KruisePodReady"}`},
		"gate present":        {admissionv1.Create, `{"metadata":{` + owner("apps.kruise.io/v1beta1", true) + `},"spec":{"readinessGates":[{"conditionType":"KruisePodReady"}]}}`, ""},
		"owned by apps/v1":    {admissionv1.Create, `{"metadata":{` + owner("apps/v1", true) + `},"spec":{}}`, ""},
		"not the controller":  {admissionv1.Create, `{"metadata":{` + owner("apps.kruise.io/v1beta1", false) + `},"spec":{}}`, ""},
		"no owner":            {admissionv1.Create, `{"metadata":{},"spec":{}}`, ""},
		"an update":           {admissionv1.Update, `{"metadata":{` + owner("apps.kruise.io/v1beta1", true) + `},"spec":{}}`, ""},
		"CloneSet pod (null)": {admissionv1.Create, `{"metadata":{` + owner("apps.kruise.io/v1beta1", true) + `},"spec":{"readinessGates":null}}`, `replace /spec/readinessGates [{"conditionType":"KruisePodReady"}]`},
	} {
		t.Run(name, func(t *testing.T) {
			resp := MutatePod(context.Background(), podRequest(tc.op, tc.pod))
			if !resp.Allowed {
				t.Fatalf("refused: %+v", resp.Result)
			}
			var got []string
			for _, p := range resp.Patches {
				v, _ := json.Marshal(p.Value)
				got = append(got, p.Operation+" "+p.Path+" "+string(v))
			}
			want := []string{}
			if tc.wantPatch != "" {
				want = []string{tc.wantPatch}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("patches %q, want %q", got, want)
			}
		})
	}
	if resp := MutatePod(context.Background(), podRequest(admissionv1.Create, `{"metadata":{"ownerReferences":"x"}}`)); resp.Allowed {
		t.Error("a pod that does not decode was let through")
	}
}

func convertReview(t *testing.T, h *Handlers, desired string, objects ...string) *apiextensionsv1.ConversionResponse {
	t.Helper()
	req := &apiextensionsv1.ConversionReview{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request: &apiextensionsv1.ConversionRequest{UID: "c1", DesiredAPIVersion: desired}}
	for _, o := range objects {
		req.Request.Objects = append(req.Request.Objects, runtime.RawExtension{Raw: []byte(o)})
	}
	body, _ := json.Marshal(req)
	rec := httptest.NewRecorder()
	h.ServeConvert(rec, httptest.NewRequest(http.MethodPost, PathConvert, bytes.NewReader(body)))
	if rec.Code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	var out apiextensionsv1.ConversionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Response == nil || out.Response.UID != "c1" || out.Kind != "ConversionReview" {
		t.Fatalf("response %+v", out)
	}
	return out.Response
}

func TestServeConvert(t *testing.T) {
	rules := &fakeRules{convertFailOn: `"bad"`}
	h := &Handlers{Rules: rules, Log: logr.Discard()}
	alpha := `{"apiVersion":"apps.kruise.io/v1alpha1","kind":"CloneSet","metadata":{"name":"a","namespace":"ns"}}`
	beta := `{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","metadata":{"name":"b","namespace":"ns"}}`
	resp := convertReview(t, h, "apps.kruise.io/v1beta1", alpha, beta)
	if resp.Result.Status != metav1.StatusSuccess || len(resp.ConvertedObjects) != 2 {
		t.Fatalf("result %+v, %d objects", resp.Result, len(resp.ConvertedObjects))
	}
	for i, o := range resp.ConvertedObjects {
		if v, _ := apiVersionOf(o.Raw); v != "apps.kruise.io/v1beta1" {
			t.Errorf("object %d: apiVersion %s", i, v)
		}
	}
	if strings.Join(rules.convertedTo, ",") != "apps.kruise.io/v1beta1" {
		t.Errorf("converted %v: the object already of the desired version must be returned as it is", rules.convertedTo)
	}
	bad := `{"apiVersion":"apps.kruise.io/v1alpha1","kind":"CloneSet","metadata":{"name":"bad","namespace":"ns"}}`
	resp = convertReview(t, h, "apps.kruise.io/v1beta1", alpha, bad)
	if resp.Result.Status != metav1.StatusFailure || !strings.Contains(resp.Result.Message, "ns/bad") || len(resp.ConvertedObjects) != 0 {
		t.Errorf("a failed conversion: %+v, %d objects", resp.Result, len(resp.ConvertedObjects))
	}
	resp = convertReview(t, h, "apps.kruise.io/v2", alpha)
	if resp.Result.Status != metav1.StatusFailure || !strings.Contains(resp.Result.Message, "apps.kruise.io/v2") {
		t.Errorf("an unknown version: %+v", resp.Result)
	}
	rec := httptest.NewRecorder()
	h.ServeConvert(rec, httptest.NewRequest(http.MethodPost, PathConvert, strings.NewReader("{")))
	if rec.Code != http.StatusBadRequest {
		t.Errorf("a body that does not decode: HTTP %d", rec.Code)
	}
}

// FuzzHandlers: whatever kube-apiserver sends (any object in an admission
// request, any conversion review body), the handlers answer without
// panicking, and a conversion answers the review's UID or an HTTP error.
func FuzzHandlers(f *testing.F) {
	f.Add([]byte(cloneSetJSON), []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"apps.kruise.io/v1alpha1","objects":[`+cloneSetJSON+`]}}`))
	f.Add([]byte(`{"metadata":{"ownerReferences":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","name":"w","uid":"u","controller":true}]},"spec":{"readinessGates":[1]}}`), []byte(`{"request":{"objects":[null,{}]}}`))
	f.Add([]byte(`null`), []byte(`[]`))
	h := &Handlers{Rules: &LibraryRules{}, Log: logr.Discard()}
	f.Fuzz(func(t *testing.T, object, review []byte) {
		ctx := context.Background()
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update, admissionv1.Delete} {
			req := cloneSetRequest(op, string(object), string(object))
			h.MutateCloneSet(ctx, req)
			h.ValidateCloneSet(ctx, req)
			MutatePod(ctx, podRequest(op, string(object)))
		}
		rec := httptest.NewRecorder()
		h.ServeConvert(rec, httptest.NewRequest(http.MethodPost, PathConvert, bytes.NewReader(review)))
		if rec.Code == http.StatusOK {
			var out apiextensionsv1.ConversionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil {
				t.Fatalf("a 200 answer that is not a review: %s", rec.Body)
			}
		}
	})
}
