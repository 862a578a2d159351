package apiserver

// MergePatch applies a JSON merge patch (RFC 7386) to a JSON tree and returns
// the result; target is not modified. An object patch merges member by
// member into an object target (any other target counts as an empty object),
// a null member removes the member, and any other patch value (a list
// included) replaces the target.
func MergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return DeepCopy(patch)
	}
	t, ok := target.(map[string]any)
	out := make(map[string]any, len(t)+len(p))
	if ok {
		for k, v := range t {
			out[k] = DeepCopy(v)
		}
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = MergePatch(out[k], v)
	}
	return out
}

// ApplyMergePatch applies the JSON merge patch body to an object, as the API
// server does for application/merge-patch+json: the body must be a JSON
// object (anything else would replace the object with a non-object).
func ApplyMergePatch(obj Object, body []byte) (Object, error) {
	p, err := DecodeJSON(body)
	if err != nil {
		return nil, errorf(ReasonBadRequest, "merge patch: %v", err)
	}
	if _, ok := p.(map[string]any); !ok {
		return nil, errorf(ReasonBadRequest, "merge patch: the body must be a JSON object, got %s", compactJSON(p))
	}
	return MergePatch(obj, p).(map[string]any), nil
}
