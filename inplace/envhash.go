package inplace

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/clonecore/cloneset/internal/debughash"
	"github.com/clonecore/cloneset/model"
)

// EnvFromMetadataHash is OpenKruise's hash of the values a container's env
// takes from its pod's labels and annotations (kruise pkg/util/containermeta,
// the expected hash): the hash kruise's node agent reports as
// extractedEnvFromMetadataHash in the apps.kruise.io/runtime-containers-meta
// annotation for a container started with the given labels and annotations,
// and the one the completion check of an in-place update that changes such
// env waits for (update-and-ordering 4.7 rule 5.1). Bit for bit:
//
//   - the env vars considered are those without a literal value whose value
//     comes from a fieldRef to metadata.labels['<key>'] or
//     metadata.annotations['<key>'] (any other field path, and the env vars
//     SIDECARSET_VERSION and SIDECARSET_VERSION_ALT, are skipped); each
//     becomes {"name": <env name>, "value": <the label's or annotation's
//     value, "" when absent>};
//   - they are stably sorted by name and encoded as the Kubernetes EnvVar
//     type encodes to JSON (an empty value omitted; no such env at all is
//     "null");
//   - the encoding is hashed as internal/debughash renders a byte slice
//     (32-bit FNV-1a), widened to 64 bits.
//
// A container without such env has the hash of "null", never 0.
func EnvFromMetadataHash(env []model.EnvVar, labels, annotations map[string]string) uint64 {
	type envVar struct {
		Name  string `json:"name"`
		Value string `json:"value,omitempty"`
	}
	var envs []envVar
	for _, e := range env {
		if e.Value != "" || e.FieldPath == "" || e.Name == "SIDECARSET_VERSION" || e.Name == "SIDECARSET_VERSION_ALT" {
			continue
		}
		path, key, ok := splitSubscriptedPath(e.FieldPath)
		if !ok {
			continue
		}
		switch path {
		case "metadata.annotations":
			envs = append(envs, envVar{Name: e.Name, Value: annotations[key]})
		case "metadata.labels":
			envs = append(envs, envVar{Name: e.Name, Value: labels[key]})
		}
	}
	sort.SliceStable(envs, func(i, j int) bool { return envs[i].Name < envs[j].Name })
	js, _ := json.Marshal(envs) // strings only: cannot fail
	return uint64(debughash.Bytes(js))
}

// splitSubscriptedPath splits a field path "<path>['<key>']" into path and
// key, as Kubernetes' fieldpath package does: the path must end with "']",
// the key starts after the first "['", and the path before it is not empty.
func splitSubscriptedPath(fieldPath string) (path, key string, ok bool) {
	s, found := strings.CutSuffix(fieldPath, "']")
	if !found {
		return "", "", false
	}
	path, key, found = strings.Cut(s, "['")
	if !found || path == "" {
		return "", "", false
	}
	return path, key, true
}
