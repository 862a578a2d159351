package model

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
)

// NormalizeTree returns a copy of a JSON-like tree with the members that do not
// change a template's meaning removed: null values, empty objects, empty lists,
// and the "$patch" directive stored revisions carry. Two templates are
// semantically equal when their normalized trees are equal.
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

// CanonicalJSON renders a normalized tree as JSON with sorted object keys.
func CanonicalJSON(tree map[string]any) []byte {
	b, err := json.Marshal(NormalizeTree(tree))
	if err != nil {
		// Trees come from decoded manifests and only hold JSON values.
		return []byte(strconv.Quote(err.Error()))
	}
	return b
}

// TemplatesEqual reports semantic equality of two raw templates.
func TemplatesEqual(a, b map[string]any) bool {
	return string(CanonicalJSON(a)) == string(CanonicalJSON(b))
}

// hashDigits re-encodes a decimal digit string with the alphabet upstream's
// SafeEncodeString effectively uses for digits (0->4 ... 9->f).
const hashDigits = "456789bcdf"

// TemplateHash is the library's stable revision hash of a raw pod template: the
// 32-bit FNV-1 of the canonical JSON followed by the decimal collision count,
// printed in decimal and re-encoded with upstream's digit alphabet, so names look
// like upstream's ("7498df56cb"). It is not bit-compatible with upstream's hash
// (which hashes a differently serialized document); identical templates always
// produce identical hashes.
func TemplateHash(tree map[string]any, collisionCount int32) string {
	h := fnv.New32()
	h.Write(CanonicalJSON(tree))
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
