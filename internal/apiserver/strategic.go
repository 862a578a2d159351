package apiserver

import (
	"strings"
)

// listRule is the patch strategy of one list field in a strategic merge
// patch: merge elements by a key, or merge primitive values as a set. A
// list field with no rule is replaced whole, as in a merge patch.
type listRule struct {
	// mergeKey is the member that identifies an element; "" for a list of
	// primitives merged as a set.
	mergeKey string
}

// metadataRules are the list rules of ObjectMeta, shared by every resource.
var metadataRules = map[string]listRule{
	"metadata.finalizers":      {},
	"metadata.ownerReferences": {mergeKey: "uid"},
}

// containerRules are the list rules of a container, under its list's path.
func containerRules(prefix string, rules map[string]listRule) {
	rules[prefix] = listRule{mergeKey: "name"}
	rules[prefix+".env"] = listRule{mergeKey: "name"}
	rules[prefix+".ports"] = listRule{mergeKey: "containerPort"}
	rules[prefix+".volumeMounts"] = listRule{mergeKey: "mountPath"}
	rules[prefix+".volumeDevices"] = listRule{mergeKey: "devicePath"}
}

// strategicRules are the list strategies of the built-in resources, after
// the patchStrategy/patchMergeKey tags of the Kubernetes API types (core/v1
// Pod, PersistentVolumeClaim, Node; apps/v1 ControllerRevision). A
// resource missing here (a custom resource such as clonesets) does not
// accept strategic merge patches.
var strategicRules = func() map[string]map[string]listRule {
	pod := map[string]listRule{
		"spec.volumes":          {mergeKey: "name"},
		"spec.imagePullSecrets": {mergeKey: "name"},
		"spec.hostAliases":      {mergeKey: "ip"},
		"status.conditions":     {mergeKey: "type"},
		// spec.readinessGates, spec.tolerations, status.containerStatuses
		// carry no patch strategy in the API types: they are replaced.
	}
	containerRules("spec.containers", pod)
	containerRules("spec.initContainers", pod)
	containerRules("spec.ephemeralContainers", pod)
	pvc := map[string]listRule{
		"status.conditions": {mergeKey: "type"},
	}
	node := map[string]listRule{
		"status.conditions": {mergeKey: "type"},
		"status.addresses":  {mergeKey: "type"},
	}
	all := map[string]map[string]listRule{
		"pods":                   pod,
		"persistentvolumeclaims": pvc,
		"nodes":                  node,
		"controllerrevisions":    {},
	}
	for _, rules := range all {
		for k, v := range metadataRules {
			rules[k] = v
		}
	}
	return all
}()

// Strategic merge patch directives.
const (
	directivePatch         = "$patch"
	directiveRetainKeys    = "$retainKeys"
	prefixDeleteFromList   = "$deleteFromPrimitiveList/"
	prefixSetElementOrder  = "$setElementOrder/"
	patchDirectiveReplace  = "replace"
	patchDirectiveDelete   = "delete"
	patchDirectiveMergeVal = "merge"
)

// ApplyStrategicMergePatch applies a strategic merge patch body to an object
// of the given resource and returns the result; obj is not modified.
//
// Maps merge as in a JSON merge patch (null removes a member). Lists with a
// merge key (see strategicRules) merge element by element: a patch element
// merges into the element with the same key or is appended, an element
// {"$patch":"delete", KEY: V} removes the element with key V, and an element
// {"$patch":"replace"} makes the rest of the patch list replace the list.
// Lists of primitives with the merge strategy (metadata.finalizers) merge as
// a set: new values are appended, and "$deleteFromPrimitiveList/FIELD"
// removes values. Every other list is replaced. A map with "$patch":
// "replace" replaces the map, with "$patch": "delete" removes it;
// "$setElementOrder/FIELD" orders a merged list ("$retainKeys" keeps only
// the listed members of a map). Unknown directives, elements without their
// merge key and bodies that are not JSON objects are errors.
func ApplyStrategicMergePatch(resource string, obj Object, body []byte) (Object, error) {
	rules, ok := strategicRules[resource]
	if !ok {
		return nil, errorf(ReasonUnsupportedMediaType, "strategic merge patch is not supported for %s", resource)
	}
	p, err := DecodeJSON(body)
	if err != nil {
		return nil, errorf(ReasonBadRequest, "strategic merge patch: %v", err)
	}
	pm, ok := p.(map[string]any)
	if !ok {
		return nil, errorf(ReasonBadRequest, "strategic merge patch: the body must be a JSON object, got %s", compactJSON(p))
	}
	s := &strategic{rules: rules}
	out, deleted, err := s.mergeMap(copyObject(obj), pm, "")
	if err != nil {
		return nil, errorf(ReasonBadRequest, "strategic merge patch: %v", err)
	}
	if deleted {
		return nil, errorf(ReasonBadRequest, "strategic merge patch: $patch: delete of the whole object")
	}
	return out, nil
}

// strategic applies one strategic merge patch.
type strategic struct {
	rules map[string]listRule
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// mergeMap merges patch into orig (which it may modify) and returns the
// result, or deleted=true when the patch deletes the map.
func (s *strategic) mergeMap(orig, patch map[string]any, path string) (map[string]any, bool, error) {
	if orig == nil {
		orig = map[string]any{}
	}
	if d, ok := patch[directivePatch]; ok {
		switch d {
		case patchDirectiveReplace:
			out, _, err := s.mergeMap(nil, withoutKey(patch, directivePatch), path)
			return out, false, err
		case patchDirectiveDelete:
			return nil, true, nil
		case patchDirectiveMergeVal:
		default:
			return nil, false, patchError("unknown $patch directive " + compactJSON(d) + " at " + describe(path))
		}
	}
	var retain []any
	hasRetain := false
	orders := map[string][]any{}
	// Deletions from primitive lists come first, then the members.
	for k, v := range patch {
		switch {
		case k == directivePatch:
		case k == directiveRetainKeys:
			l, ok := v.([]any)
			if !ok {
				return nil, false, patchError("$retainKeys at " + describe(path) + " is not a list")
			}
			retain, hasRetain = l, true
		case strings.HasPrefix(k, prefixDeleteFromList):
			field := strings.TrimPrefix(k, prefixDeleteFromList)
			l, ok := v.([]any)
			if !ok {
				return nil, false, patchError(k + " at " + describe(path) + " is not a list")
			}
			if cur, ok := orig[field].([]any); ok {
				var kept []any
				for _, x := range cur {
					if !containsValue(l, x) {
						kept = append(kept, x)
					}
				}
				if kept == nil {
					kept = []any{}
				}
				orig[field] = kept
			}
		case strings.HasPrefix(k, prefixSetElementOrder):
			l, ok := v.([]any)
			if !ok {
				return nil, false, patchError(k + " at " + describe(path) + " is not a list")
			}
			orders[strings.TrimPrefix(k, prefixSetElementOrder)] = l
		case strings.HasPrefix(k, "$"):
			return nil, false, patchError("unknown directive " + k + " at " + describe(path))
		}
	}
	server := map[string][]any{}
	for field := range orders {
		server[field], _ = orig[field].([]any)
	}
	for k, v := range patch {
		if strings.HasPrefix(k, "$") {
			continue
		}
		fp := join(path, k)
		switch pv := v.(type) {
		case nil:
			delete(orig, k)
		case map[string]any:
			om, _ := orig[k].(map[string]any)
			merged, del, err := s.mergeMap(om, pv, fp)
			if err != nil {
				return nil, false, err
			}
			if del {
				delete(orig, k)
			} else {
				orig[k] = merged
			}
		case []any:
			rule, ok := s.rules[fp]
			if !ok {
				orig[k] = DeepCopy(pv)
				continue
			}
			ol, _ := orig[k].([]any)
			merged, err := s.mergeList(ol, pv, rule, fp)
			if err != nil {
				return nil, false, err
			}
			orig[k] = merged
		default:
			orig[k] = pv
		}
	}
	for field, order := range orders {
		l, ok := orig[field].([]any)
		if !ok {
			continue
		}
		orig[field] = s.reorder(l, order, server[field], s.rules[join(path, field)])
	}
	if hasRetain {
		keep := map[string]bool{}
		for _, x := range retain {
			name, ok := x.(string)
			if !ok {
				return nil, false, patchError("$retainKeys at " + describe(path) + " lists a non-string")
			}
			keep[name] = true
		}
		for k := range orig {
			if !keep[k] {
				delete(orig, k)
			}
		}
	}
	return orig, false, nil
}

// mergeList merges a patch list into a list with a merge rule.
func (s *strategic) mergeList(orig, patch []any, rule listRule, path string) ([]any, error) {
	if rule.mergeKey == "" {
		out := append([]any{}, orig...)
		for _, x := range patch {
			if _, ok := x.(map[string]any); ok {
				return nil, patchError("a map in the primitive list " + describe(path))
			}
			if !containsValue(out, x) {
				out = append(out, x)
			}
		}
		return out, nil
	}
	// {"$patch":"replace"} among the elements: the rest replaces the list.
	for _, x := range patch {
		if m, ok := x.(map[string]any); ok && m[directivePatch] == patchDirectiveReplace {
			var out []any
			for _, y := range patch {
				ym, ok := y.(map[string]any)
				if !ok {
					return nil, patchError("a non-map element in the list " + describe(path))
				}
				if ym[directivePatch] == patchDirectiveReplace {
					continue
				}
				merged, _, err := s.mergeMap(nil, ym, path)
				if err != nil {
					return nil, err
				}
				out = append(out, merged)
			}
			if out == nil {
				out = []any{}
			}
			return out, nil
		}
	}
	out := append([]any{}, orig...)
	for _, x := range patch {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, patchError("a non-map element " + compactJSON(x) + " in the list " + describe(path) + " (merge key " + rule.mergeKey + ")")
		}
		key, ok := m[rule.mergeKey]
		if !ok {
			return nil, patchError("an element of " + describe(path) + " does not contain the merge key " + rule.mergeKey + ": " + compactJSON(m))
		}
		if d, ok := m[directivePatch]; ok && d == patchDirectiveDelete {
			var kept []any
			for _, y := range out {
				if ym, ok := y.(map[string]any); !ok || !Equal(ym[rule.mergeKey], key) {
					kept = append(kept, y)
				}
			}
			if kept == nil {
				kept = []any{}
			}
			out = kept
			continue
		}
		idx := -1
		for i, y := range out {
			if ym, ok := y.(map[string]any); ok && Equal(ym[rule.mergeKey], key) {
				idx = i
				break
			}
		}
		if idx < 0 {
			merged, del, err := s.mergeMap(nil, m, path)
			if err != nil {
				return nil, err
			}
			if !del {
				out = append(out, merged)
			}
			continue
		}
		om, _ := out[idx].(map[string]any)
		merged, del, err := s.mergeMap(om, m, path)
		if err != nil {
			return nil, err
		}
		if del {
			out = append(out[:idx:idx], out[idx+1:]...)
		} else {
			out[idx] = merged
		}
	}
	return out, nil
}

// reorder applies a $setElementOrder list to a merged list: the elements it
// names follow its order; the others keep their order, and one goes before
// a named element only where it preceded that element on the server (in
// server, the list before the patch).
func (s *strategic) reorder(list, order, server []any, rule listRule) []any {
	identity := func(x any) any {
		if rule.mergeKey == "" {
			return x
		}
		if m, ok := x.(map[string]any); ok {
			return m[rule.mergeKey]
		}
		return nil
	}
	orderIndex := func(x any) int {
		id := identity(x)
		for i, o := range order {
			if Equal(identity(o), id) {
				return i
			}
		}
		return -1
	}
	serverIndex := func(x any) int {
		for i, y := range server {
			if Equal(identity(y), identity(x)) {
				return i
			}
		}
		return -1
	}
	var named, unnamed []any
	for _, x := range list {
		if orderIndex(x) >= 0 {
			named = append(named, x)
		} else {
			unnamed = append(unnamed, x)
		}
	}
	// Stable insertion sort of the named elements by their order index.
	for i := 1; i < len(named); i++ {
		for j := i; j > 0 && orderIndex(named[j]) < orderIndex(named[j-1]); j-- {
			named[j], named[j-1] = named[j-1], named[j]
		}
	}
	out := make([]any, 0, len(list))
	i, j := 0, 0
	for i < len(unnamed) || j < len(named) {
		switch {
		case j >= len(named):
			out = append(out, unnamed[i])
			i++
		case i >= len(unnamed):
			out = append(out, named[j])
			j++
		case serverIndex(unnamed[i]) >= 0 && serverIndex(named[j]) >= 0 && serverIndex(unnamed[i]) < serverIndex(named[j]):
			out = append(out, unnamed[i])
			i++
		default:
			out = append(out, named[j])
			j++
		}
	}
	return out
}

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func containsValue(l []any, x any) bool {
	for _, y := range l {
		if Equal(x, y) {
			return true
		}
	}
	return false
}

func describe(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}
