package webhook

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// maxReviewBytes bounds a review's body (kube-apiserver's own limit on a
// request is 3 MiB per object; a list conversion holds many).
const maxReviewBytes = 64 << 20

// ServeConvert is the CRD conversion webhook (ConversionReview
// apiextensions.k8s.io/v1): every object of the request is converted to
// the desired version with Rules.Convert, or returned as it is when it is
// already of that version. One object that cannot be converted fails the
// whole review, naming the object (kube-apiserver then fails the request).
func (h *Handlers) ServeConvert(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a ConversionReview", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewBytes+1))
	if err != nil {
		http.Error(w, "read the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > maxReviewBytes {
		http.Error(w, fmt.Sprintf("a ConversionReview above %d bytes", maxReviewBytes), http.StatusRequestEntityTooLarge)
		return
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil {
		http.Error(w, "decode the ConversionReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	if review.Request == nil {
		http.Error(w, "a ConversionReview without a request", http.StatusBadRequest)
		return
	}
	review.Response = h.convert(review.Request)
	review.Request = nil
	review.APIVersion, review.Kind = apiextensionsv1.SchemeGroupVersion.String(), "ConversionReview"
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(&review); err != nil {
		h.Log.Error(err, "write the ConversionReview response")
	}
}

// convert answers one conversion request.
func (h *Handlers) convert(req *apiextensionsv1.ConversionRequest) *apiextensionsv1.ConversionResponse {
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	fail := func(err error) *apiextensionsv1.ConversionResponse {
		h.Log.Info("conversion failed", "desiredAPIVersion", req.DesiredAPIVersion, "error", err.Error())
		return &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}}
	}
	if !isCloneSetVersion(req.DesiredAPIVersion) {
		return fail(fmt.Errorf("conversion to %q: want %s/v1alpha1 or %s/v1beta1", req.DesiredAPIVersion, Group, Group))
	}
	resp.ConvertedObjects = make([]runtime.RawExtension, len(req.Objects))
	for i, obj := range req.Objects {
		name := objectName(obj.Raw)
		from, err := apiVersionOf(obj.Raw)
		if err != nil {
			return fail(fmt.Errorf("object %d (%s): %w", i, name, err))
		}
		if from == req.DesiredAPIVersion {
			resp.ConvertedObjects[i] = runtime.RawExtension{Raw: obj.Raw}
			continue
		}
		if !isCloneSetVersion(from) {
			return fail(fmt.Errorf("CloneSet %s: apiVersion %q: want %s/v1alpha1 or %s/v1beta1", name, from, Group, Group))
		}
		out, err := h.Rules.Convert(obj.Raw, req.DesiredAPIVersion)
		if err != nil {
			return fail(fmt.Errorf("CloneSet %s: convert from %s to %s: %w", name, trimVersion(from), trimVersion(req.DesiredAPIVersion), err))
		}
		resp.ConvertedObjects[i] = runtime.RawExtension{Raw: out}
	}
	return resp
}

// objectName is "namespace/name" of an object, for messages ("?" when it
// does not say).
func objectName(raw []byte) string {
	var head struct {
		Metadata struct {
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &head) != nil || head.Metadata.Name == "" {
		return "?"
	}
	if head.Metadata.Namespace == "" {
		return head.Metadata.Name
	}
	return head.Metadata.Namespace + "/" + head.Metadata.Name
}
