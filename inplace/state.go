package inplace

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clonecore/cloneset/model"
)

// Time is a Kubernetes timestamp as written in the in-place annotations: RFC 3339,
// whole seconds, UTC; JSON null (or "") for the zero time.
type Time struct{ time.Time }

// MarshalJSON writes the time as RFC 3339 in UTC truncated to the second, or null.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Truncate(time.Second).Format(time.RFC3339))
}

// UnmarshalJSON reads an RFC 3339 string (fractions accepted), null or "".
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("timestamp %q: %w", s, err)
	}
	t.Time = v
	return nil
}

// QuantityText is a resource quantity as written in an annotation: a JSON string,
// or a bare JSON number.
type QuantityText string

// UnmarshalJSON accepts a string or a number.
func (q *QuantityText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*q = QuantityText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("quantity: %w", err)
	}
	*q = QuantityText(n)
	return nil
}

// Resources are the limits and requests of one container as written in an
// annotation.
type Resources struct {
	// Limits maps a resource name to its limit.
	Limits map[string]QuantityText `json:"limits,omitempty"`
	// Requests maps a resource name to its request.
	Requests map[string]QuantityText `json:"requests,omitempty"`
}

// ObjectMeta is the part of an object's metadata the in-place annotations carry:
// labels and annotations.
type ObjectMeta struct {
	// Labels are label keys and values.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are annotation keys and values.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ContainerStatusRecord is a container's status before its image changed.
type ContainerStatusRecord struct {
	// ImageID is the status imageID before the update.
	ImageID string `json:"imageID,omitempty"`
}

// PreCheck lists the containers that must be ready before the next batch starts.
type PreCheck struct {
	// ContainersRequiredReady are container names whose status must be ready.
	ContainersRequiredReady []string `json:"containersRequiredReady,omitempty"`
}

// Batch records one batch of containers updated at one time.
type Batch struct {
	// Timestamp is when the batch was applied.
	Timestamp Time `json:"timestamp"`
	// Containers are the names of the containers of the batch, sorted.
	Containers []string `json:"containers"`
}

// State is the in-place update state annotation (apps.kruise.io/inplace-update-state,
// update-and-ordering 4.5), in upstream's JSON shape.
type State struct {
	// Revision is the revision the pod is being updated to.
	Revision string `json:"revision"`
	// UpdateTimestamp is when the in-place update started; grace periods count
	// from here.
	UpdateTimestamp Time `json:"updateTimestamp"`
	// LastContainerStatuses records, per container whose image changes, the
	// status before the change.
	LastContainerStatuses map[string]ContainerStatusRecord `json:"lastContainerStatuses"`
	// UpdateEnvFromMetadata is set when env-referenced metadata changes.
	UpdateEnvFromMetadata bool `json:"updateEnvFromMetadata,omitempty"`
	// UpdateResources is set when container resources change.
	UpdateResources bool `json:"updateResources,omitempty"`
	// UpdateImages is set when container images change.
	UpdateImages bool `json:"updateImages,omitempty"`
	// NextContainerImages are images deferred to the next batch.
	NextContainerImages map[string]string `json:"nextContainerImages,omitempty"`
	// NextContainerRefMetadata is env-referenced metadata deferred to the next batch.
	NextContainerRefMetadata map[string]ObjectMeta `json:"nextContainerRefMetadata,omitempty"`
	// NextContainerResources are resources deferred to the next batch.
	NextContainerResources map[string]Resources `json:"nextContainerResources,omitempty"`
	// PreCheckBeforeNext must pass before the next batch starts.
	PreCheckBeforeNext *PreCheck `json:"preCheckBeforeNext,omitempty"`
	// ContainerBatchesRecord lists the batches applied so far.
	ContainerBatchesRecord []Batch `json:"containerBatchesRecord,omitempty"`
}

// HasNextBatch reports whether a deferred lower-priority batch is pending.
func (s *State) HasNextBatch() bool {
	return len(s.NextContainerImages) > 0 || len(s.NextContainerRefMetadata) > 0 || len(s.NextContainerResources) > 0
}

// MetadataPatchBytes is upstream's metaDataPatch: a strategic merge patch stored as
// base64 JSON. Unmarshalling also accepts the patch as a plain JSON object or a
// JSON string holding the patch text.
type MetadataPatchBytes []byte

// MarshalJSON writes the patch base64-encoded, as upstream does.
func (m MetadataPatchBytes) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	return json.Marshal([]byte(m))
}

// UnmarshalJSON reads a base64 string, a JSON string holding JSON, or an object.
func (m *MetadataPatchBytes) UnmarshalJSON(b []byte) error {
	t := bytes.TrimSpace(b)
	if bytes.Equal(t, []byte("null")) {
		*m = nil
		return nil
	}
	if len(t) > 0 && t[0] == '{' {
		*m = append((*m)[:0], t...)
		return nil
	}
	var s string
	if err := json.Unmarshal(t, &s); err != nil {
		return fmt.Errorf("metaDataPatch: %w", err)
	}
	if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
		*m = raw
		return nil
	}
	*m = []byte(s)
	return nil
}

// Pending is the grace annotation (apps.kruise.io/inplace-update-grace): the
// in-place update that waits for its grace period to end (update-and-ordering 4.5).
type Pending struct {
	// Revision is the target revision of the pending update.
	Revision string `json:"revision"`
	// ContainerImages maps a container name to its new image.
	ContainerImages map[string]string `json:"containerImages,omitempty"`
	// ContainerRefMetadata maps a container name to the env-referenced labels and
	// annotations to set.
	ContainerRefMetadata map[string]ObjectMeta `json:"containerRefMetadata,omitempty"`
	// ContainerResources maps a container name to its new resources.
	ContainerResources map[string]Resources `json:"containerResources,omitempty"`
	// MetaDataPatch is the plain metadata patch (strategic merge patch of the pod).
	MetaDataPatch MetadataPatchBytes `json:"metaDataPatch,omitempty"`
	// UpdateEnvFromMetadata is set when env-referenced metadata changes.
	UpdateEnvFromMetadata bool `json:"updateEnvFromMetadata,omitempty"`
	// GraceSeconds is the grace period, counted from the state's updateTimestamp.
	GraceSeconds int32 `json:"graceSeconds,omitempty"`
}

// ParseState reads the pod's in-place update state annotation (the new key, else
// the legacy key). ok is false when neither key is present; err is set when the
// value is not valid JSON of the state shape.
func ParseState(p *model.Pod) (state *State, ok bool, err error) {
	v, ok := p.InPlaceState()
	if !ok {
		return nil, false, nil
	}
	if s, ok := parseStateFast(v); ok {
		return s, true, nil
	}
	s, err := unmarshalState(p, v)
	return s, true, err
}

// unmarshalState reads the state annotation value v of pod p with
// json.Unmarshal (the general path of ParseState).
func unmarshalState(p *model.Pod, v string) (*State, error) {
	s := &State{}
	if err := json.Unmarshal([]byte(v), s); err != nil {
		return nil, fmt.Errorf("pod %s: unparsable in-place update state annotation: %w", p.Name, err)
	}
	return s, nil
}

// ParsePending reads the pod's grace annotation (the new key, else the legacy key).
// ok is false when the value is empty (not in grace).
func ParsePending(p *model.Pod) (pending *Pending, ok bool, err error) {
	v := p.GraceValue()
	if v == "" {
		return nil, false, nil
	}
	g := &Pending{}
	if err := json.Unmarshal([]byte(v), g); err != nil {
		return nil, true, fmt.Errorf("pod %s: unparsable in-place update grace annotation: %w", p.Name, err)
	}
	return g, true, nil
}

// runtimeMeta is the kruise daemon's apps.kruise.io/runtime-containers-meta
// annotation; names, container ids and env-from-metadata hashes are read
// (the plain hash is not: docs/spec/DECISIONS.md, UO 11.5).
type runtimeMeta struct {
	Containers []runtimeContainer `json:"containers"`
}

// runtimeContainer is one container of the runtime-containers-meta annotation.
type runtimeContainer struct {
	Name        string `json:"name"`
	ContainerID string `json:"containerID"`
	Hashes      struct {
		ExtractedEnvFromMetadataHash uint64 `json:"extractedEnvFromMetadataHash"`
	} `json:"hashes"`
}

func parseRuntimeMeta(p *model.Pod) (*runtimeMeta, error) {
	v, ok := p.Annotations[model.AnnotationRuntimeContainersMeta]
	if !ok {
		return nil, nil
	}
	m := &runtimeMeta{}
	if err := json.Unmarshal([]byte(v), m); err != nil {
		return nil, fmt.Errorf("pod %s: unparsable runtime-containers-meta annotation: %w", p.Name, err)
	}
	return m, nil
}
