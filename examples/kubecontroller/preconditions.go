package kubecontroller

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clonecore/cloneset/requests"
)

// withPreconditions puts a request's preconditions into its patch body, the
// way the API server checks them on a patch: a merge or strategic merge patch
// carries metadata.uid (immutable: a patch that would change it is refused)
// and metadata.resourceVersion (a stale one is a 409 Conflict); a JSON patch
// starts with a test operation per precondition.
//
// The body is checked to be JSON, and the preconditions are written into it
// without decoding it (spliceMetadata, spliceTests): every patch of a pod
// carries its uid, and decoding each into maps to encode it again was a
// tenth of a write's cost. A body the splice does not handle (a metadata
// that is not an object or already names the uid or resourceVersion, a key
// written with escapes) is decoded and encoded again as before
// (mergePreconditions); both give the same patch to the API server.
func withPreconditions(pt requests.PatchType, body []byte, pre *requests.Preconditions) ([]byte, error) {
	if pre == nil || (pre.UID == "" && pre.ResourceVersion == "") {
		return body, nil
	}
	switch pt {
	case requests.PatchJSON:
		if !json.Valid(body) {
			return nil, fmt.Errorf("JSON patch: %v", jsonError(body))
		}
		if out, ok := spliceTests(body, pre); ok {
			return out, nil
		}
		return testsPreconditions(body, pre)
	case requests.PatchMerge, requests.PatchStrategicMerge:
		if !json.Valid(body) {
			return nil, fmt.Errorf("patch: %v", jsonError(body))
		}
		if out, ok := spliceMetadata(body, metadataMembers(pre)); ok {
			return out, nil
		}
		return mergePreconditions(body, pre)
	}
	return nil, fmt.Errorf("unknown patch type %q", pt)
}

// jsonError is encoding/json's error for a body json.Valid refuses.
func jsonError(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return fmt.Errorf("not JSON")
}

// quote is s as a JSON string.
func quote(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// metadataMembers are the preconditions as members of metadata:
// "uid":"...","resourceVersion":"..." (those set).
func metadataMembers(pre *requests.Preconditions) []byte {
	var b []byte
	if pre.UID != "" {
		b = append(append(b, `"uid":`...), quote(pre.UID)...)
	}
	if pre.ResourceVersion != "" {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(append(b, `"resourceVersion":`...), quote(pre.ResourceVersion)...)
	}
	return b
}

// testOperations are the test operations of the preconditions, comma
// separated, as encoding/json writes them.
func testOperations(pre *requests.Preconditions) []byte {
	var b []byte
	add := func(path, value string) {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(append(append(append(b, `{"op":"test","path":"`...), path...), `","value":`...), quote(value)...)
		b = append(b, '}')
	}
	if pre.UID != "" {
		add("/metadata/uid", pre.UID)
	}
	if pre.ResourceVersion != "" {
		add("/metadata/resourceVersion", pre.ResourceVersion)
	}
	return b
}

// spliceTests puts the test operations first in a JSON patch (valid JSON);
// false when the body is not a list.
func spliceTests(body []byte, pre *requests.Preconditions) ([]byte, bool) {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '[' {
		return nil, false
	}
	tests := testOperations(pre)
	rest := body[i+1:]
	out := make([]byte, 0, len(tests)+len(body)+1)
	out = append(append(out, '['), tests...)
	if j := skipSpace(rest, 0); j < len(rest) && rest[j] != ']' {
		out = append(out, ',')
	}
	return append(out, rest...), true
}

// spliceMetadata adds members (the preconditions) to the metadata object of
// a merge patch (valid JSON) without decoding it: at the start of its
// metadata, or as a new metadata first. False when the body is not an
// object, its metadata is not an object or already has a uid or
// resourceVersion, or a key at those levels is written with escapes (it
// might spell one of those names).
func spliceMetadata(body, members []byte) ([]byte, bool) {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return nil, false
	}
	open := i
	at, ok := findMember(body, open, "metadata")
	if !ok {
		return nil, false
	}
	if at < 0 { // no metadata: a new one first
		out := make([]byte, 0, len(body)+len(members)+16)
		out = append(append(append(out, body[:open+1]...), `"metadata":{`...), members...)
		out = append(out, '}')
		if j := skipSpace(body, open+1); body[j] != '}' {
			out = append(out, ',')
		}
		return append(out, body[open+1:]...), true
	}
	if body[at] != '{' {
		return nil, false
	}
	for _, name := range []string{"uid", "resourceVersion"} {
		if found, ok := findMember(body, at, name); !ok || found >= 0 {
			return nil, false
		}
	}
	out := make([]byte, 0, len(body)+len(members)+1)
	out = append(append(out, body[:at+1]...), members...)
	if j := skipSpace(body, at+1); body[j] != '}' {
		out = append(out, ',')
	}
	return append(out, body[at+1:]...), true
}

// findMember returns where the value of the member name of the object that
// starts at open (valid JSON) starts, -1 when the object has no such
// member; false when a key of the object holds an escape.
func findMember(b []byte, open int, name string) (int, bool) {
	i := skipSpace(b, open+1)
	if b[i] == '}' {
		return -1, true
	}
	for {
		end := skipString(b, i)
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return 0, false
		}
		i = skipSpace(b, end)
		i = skipSpace(b, i+1) // the colon
		if string(key) == name {
			return i, true
		}
		i = skipSpace(b, skipValue(b, i))
		if b[i] == '}' {
			return -1, true
		}
		i = skipSpace(b, i+1) // the comma
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && strings.IndexByte(" \t\r\n", b[i]) >= 0 {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the value that starts at i (valid
// JSON).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && strings.IndexByte(",}] \t\r\n", b[i]) < 0 {
		i++
	}
	return i
}

// testsPreconditions is withPreconditions of a JSON patch by decoding it.
func testsPreconditions(body []byte, pre *requests.Preconditions) ([]byte, error) {
	var ops []json.RawMessage
	if err := json.Unmarshal(body, &ops); err != nil {
		return nil, fmt.Errorf("JSON patch: %v", err)
	}
	return append(append(append([]byte{'['}, testOperations(pre)...), joinRaw(ops)...), ']'), nil
}

// joinRaw joins raw JSON values, each after a comma.
func joinRaw(values []json.RawMessage) []byte {
	var b []byte
	for _, v := range values {
		b = append(append(b, ','), v...)
	}
	return b
}

// mergePreconditions is withPreconditions of a merge patch by decoding it
// into maps and encoding it again.
func mergePreconditions(body []byte, pre *requests.Preconditions) ([]byte, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("patch: %v", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		m["metadata"] = md
	}
	if pre.UID != "" {
		md["uid"] = pre.UID
	}
	if pre.ResourceVersion != "" {
		md["resourceVersion"] = pre.ResourceVersion
	}
	return json.Marshal(m)
}
