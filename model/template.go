package model

import (
	"bytes"
	"hash/fnv"
	"strconv"

	"github.com/clonecore/cloneset/podtemplate"
)

// NormalizeTree returns a copy of a JSON-like tree with null values, empty
// objects, empty lists and "$patch" directives removed: the shape the
// webhook's InPlaceOnly rule and the volume-claim-template hash compare.
// (Templates are compared by their typed encoding: TemplatesEqual.)
func NormalizeTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if k == "$patch" {
				continue
			}
			n := NormalizeTree(x)
			if isEmptyValue(n) {
				continue
			}
			out[k] = n
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			n := NormalizeTree(x)
			if n == nil {
				n = map[string]any{}
			}
			out[i] = n
		}
		return out
	default:
		return v
	}
}

func isEmptyValue(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// Tree returns the template as a JSON-like tree: Raw, or for a template
// built in code (Raw nil) the tree TemplateTree renders from its typed
// fields.
func (t PodTemplate) Tree() map[string]any {
	if t.Raw != nil {
		return t.Raw
	}
	return TemplateTree(t)
}

// RevisionData returns the data of the ControllerRevision upstream writes
// for a template, byte for byte (podtemplate.RevisionData: the template as
// the Kubernetes API types write it, "$patch":"replace" added, wrapped as
// {"spec":{"template":...}}). The error names the member the API types
// would refuse, its path starting at the template.
func RevisionData(t PodTemplate) ([]byte, error) {
	return podtemplate.RevisionData(t.Tree())
}

// TemplatesEqual reports whether two templates are the same revision by
// meaning: their revision data (RevisionData) are the same bytes, so they
// differ at most in what the API types do not keep (unknown members, a
// member written empty or left out, a quantity's spelling, a "$patch"
// directive). A template the API types refuse equals none.
func TemplatesEqual(a, b PodTemplate) bool {
	da, errA := RevisionData(a)
	db, errB := RevisionData(b)
	return errA == nil && errB == nil && bytes.Equal(da, db)
}

// hashDigits re-encodes a decimal digit string as upstream's SafeEncodeString
// does (it maps every byte into "bcdfghjklmnpqrstvwxz2456789"; the digits
// 0-9 land on "456789bcdf").
const hashDigits = "456789bcdf"

// TemplateHash is upstream's ControllerRevision hash, bit for bit (the
// controller history's HashControllerRevision): the 32-bit FNV-1 (not 1a) of
// the revision's data bytes (RevisionData) followed by the collision count in
// decimal, printed in decimal and passed through SafeEncodeString. It is the
// controller.kubernetes.io/hash label of a revision and, with the collision
// count the revision was finally created with, the suffix of its name
// (RevisionName), so the library names a revision exactly as the real
// controller does for the same template.
func TemplateHash(data []byte, collisionCount int32) string {
	h := fnv.New32()
	h.Write(data)
	h.Write([]byte(strconv.Itoa(int(collisionCount))))
	dec := strconv.FormatUint(uint64(h.Sum32()), 10)
	out := make([]byte, len(dec))
	for i := 0; i < len(dec); i++ {
		out[i] = hashDigits[dec[i]-'0']
	}
	return string(out)
}

// RevisionName returns "<cloneset-name>-<hash>" with the name cut to 223 characters.
func RevisionName(cloneSetName, hash string) string {
	if len(cloneSetName) > 223 {
		cloneSetName = cloneSetName[:223]
	}
	return cloneSetName + "-" + hash
}
