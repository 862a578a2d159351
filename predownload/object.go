package predownload

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/clonecore/cloneset/model"
)

// The ImagePullJob the controller creates (P7).
const (
	// APIVersion and Kind identify the object: OpenKruise's
	// apps.kruise.io/v1beta1 ImagePullJob, the version upstream's CloneSet
	// controller writes (the CRD stores v1beta1 and serves v1alpha1 too).
	APIVersion = "apps.kruise.io/v1beta1"
	Kind       = "ImagePullJob"
	// Resource is its plural resource name.
	Resource = "imagepulljobs"
	// DefaultParallelism is spec.parallelism without imagePreDownloadParallelism.
	DefaultParallelism = 1
	// DefaultTimeoutSeconds is spec.pullPolicy.timeoutSeconds without
	// imagePreDownloadTimeoutSeconds.
	DefaultTimeoutSeconds = 300
	// BackoffLimit is spec.pullPolicy.backoffLimit.
	BackoffLimit = 1
	// CompletionPolicyAlways is spec.completionPolicy.type.
	CompletionPolicyAlways = "Always"
	// TTLSecondsAfterFinished is spec.completionPolicy.ttlSecondsAfterFinished:
	// OpenKruise's ImagePullJob controller deletes a finished job after it.
	TTLSecondsAfterFinished = 600
	// OwnerAPIVersion is the apiVersion of the owner reference to the
	// CloneSet, whatever the CloneSet's own version.
	OwnerAPIVersion = "apps.kruise.io/v1beta1"
)

// Object is an ImagePullJob as the controller creates it: the fields of
// OpenKruise's apps.kruise.io/v1beta1 ImagePullJob type that it sets, in
// the order of that type, so that json.Marshal writes the bytes upstream's
// client sends (its typed object encoded by encoding/json): zero-valued
// metadata.creationTimestamp as null and the four counters of an empty
// status included.
type Object struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Metadata   ObjectMeta `json:"metadata"`
	Spec       Spec       `json:"spec"`
	Status     Status     `json:"status"`
}

// ObjectMeta is the job's metadata.
type ObjectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// CreationTimestamp is always null (the zero time of the typed object).
	CreationTimestamp *string           `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels,omitempty"`
	OwnerReferences   []OwnerReference  `json:"ownerReferences"`
}

// OwnerReference is the controller reference to the CloneSet.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         bool   `json:"controller"`
	BlockOwnerDeletion bool   `json:"blockOwnerDeletion"`
}

// Spec is the job's spec.
type Spec struct {
	Image            string           `json:"image"`
	PullSecrets      []string         `json:"pullSecrets,omitempty"`
	PodSelector      LabelSelector    `json:"podSelector"`
	Parallelism      IntOrString      `json:"parallelism"`
	PullPolicy       PullPolicy       `json:"pullPolicy"`
	CompletionPolicy CompletionPolicy `json:"completionPolicy"`
	SandboxConfig    SandboxConfig    `json:"sandboxConfig"`
}

// LabelSelector is a Kubernetes label selector as encoding/json writes
// metav1.LabelSelector.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement is one matchExpressions entry.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// IntOrString is written as Kubernetes' intstr.IntOrString: a number or a
// string.
type IntOrString struct{ model.IntOrPercent }

// MarshalJSON writes the integer as a number, the string as a string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.IsString {
		return json.Marshal(v.Str)
	}
	return json.Marshal(v.Int)
}

// PullPolicy is spec.pullPolicy.
type PullPolicy struct {
	TimeoutSeconds int32 `json:"timeoutSeconds"`
	BackoffLimit   int32 `json:"backoffLimit"`
}

// CompletionPolicy is spec.completionPolicy.
type CompletionPolicy struct {
	Type                    string `json:"type"`
	TTLSecondsAfterFinished int32  `json:"ttlSecondsAfterFinished"`
}

// SandboxConfig is spec.sandboxConfig: the metadata the image puller
// passes to the container runtime.
type SandboxConfig struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Status is the empty status of a new job (its counters are not optional).
type Status struct {
	Desired   int32 `json:"desired"`
	Active    int32 `json:"active"`
	Succeeded int32 `json:"succeeded"`
	Failed    int32 `json:"failed"`
}

// NewObject builds the ImagePullJob of job for the CloneSet's update
// revision upd (P7): in the CloneSet's namespace, controlled by it; labelled
// with the template's labels and the revision's controller.kubernetes.io/hash
// label (its value, "" when the revision has none); pulling job.Image on the
// pods the CloneSet's selector selects that are not at upd
// (controller-revision-hash NotIn [upd's name, its hash label]); with the
// template's image pull secrets, the parallelism and timeout of the in-place
// update strategy, backoff 1, completion Always with a TTL of 600 s, and the
// template's labels (with the hash) and annotations as sandbox metadata.
func NewObject(cs *model.CloneSet, upd *model.Revision, job Job) Object {
	hash := upd.Labels[model.LabelControllerRevisionHash]
	labels := make(map[string]string, len(cs.Spec.Template.Labels)+1)
	for k, v := range cs.Spec.Template.Labels {
		labels[k] = v
	}
	labels[model.LabelControllerRevisionHash] = hash
	var sel LabelSelector
	if s := cs.Spec.Selector; s != nil {
		sel.MatchLabels = maps.Clone(s.MatchLabels)
		for _, e := range s.MatchExpressions {
			sel.MatchExpressions = append(sel.MatchExpressions, LabelSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: slices.Clone(e.Values)})
		}
	}
	sel.MatchExpressions = append(sel.MatchExpressions, LabelSelectorRequirement{
		Key: model.LabelRevisionHash, Operator: model.OpNotIn, Values: []string{upd.Name, hash},
	})
	return Object{
		Kind: Kind, APIVersion: APIVersion,
		Metadata: ObjectMeta{
			Name: job.Name, Namespace: cs.Namespace, Labels: labels,
			OwnerReferences: []OwnerReference{{
				APIVersion: OwnerAPIVersion, Kind: "CloneSet", Name: cs.Name, UID: cs.UID,
				Controller: true, BlockOwnerDeletion: true,
			}},
		},
		Spec: Spec{
			Image:            job.Image,
			PullSecrets:      PullSecrets(cs.Spec.Template),
			PodSelector:      sel,
			Parallelism:      IntOrString{Parallelism(cs)},
			PullPolicy:       PullPolicy{TimeoutSeconds: TimeoutSeconds(cs), BackoffLimit: BackoffLimit},
			CompletionPolicy: CompletionPolicy{Type: CompletionPolicyAlways, TTLSecondsAfterFinished: TTLSecondsAfterFinished},
			SandboxConfig:    SandboxConfig{Labels: labels, Annotations: maps.Clone(cs.Spec.Template.Annotations)},
		},
	}
}

// JSON is the object as upstream's client sends it (encoding/json, HTML
// characters escaped, no final newline).
func (o Object) JSON() ([]byte, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("ImagePullJob %s: %w", o.Metadata.Name, err)
	}
	return b, nil
}

// PullSecrets are the names of the template's spec.imagePullSecrets, in
// order (an entry without a name gives ""); nil when there are none.
func PullSecrets(t model.PodTemplate) []string {
	spec, _ := t.Tree()["spec"].(map[string]any)
	list, _ := spec["imagePullSecrets"].([]any)
	var out []string
	for _, x := range list {
		m, _ := x.(map[string]any)
		name, _ := m["name"].(string)
		out = append(out, name)
	}
	return out
}
