package apiserver

// The pod rules of the API server the store models (Kubernetes 1.32 and
// later, the behavior a controller meets on a current cluster): a pod update
// may change only a few spec fields, and container resources change only
// through the pods/resize subresource.

// forbiddenPodUpdate is the API server's message for a pod update that
// changes a spec field an update may not change.
const forbiddenPodUpdate = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`," +
	"`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations)," +
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

// checkPodUpdate applies the pod update validation to a write of a pod's
// main resource: the new spec may differ from the stored one only by
//   - the image of a container or init container (same containers, same
//     order);
//   - activeDeadlineSeconds set where it was not, or lowered;
//   - tolerations added to the existing ones;
//   - terminationGracePeriodSeconds set to 1 where it was negative;
//   - scheduling gates removed.
//
// Anything else (container resources included) is Invalid with the API
// server's message. Values compare as JSON: a quantity written differently
// ("1" for "1000m") counts as a change, which a real server would not see;
// the store is stricter there. Additions to the node selector and affinity
// of a pod with scheduling gates, which a real server accepts, are refused
// too: no controller write of this project makes them.
func checkPodUpdate(k Key, cur, next Object) error {
	old, _ := cur["spec"].(map[string]any)
	spec, _ := DeepCopy(next["spec"]).(map[string]any)
	if old == nil || spec == nil {
		if Equal(cur["spec"], next["spec"]) {
			return nil
		}
		return errorf(ReasonInvalid, "Pod %q is invalid: %s", k.Name, forbiddenPodUpdate)
	}
	for _, list := range []string{"containers", "initContainers"} {
		keepImages(old[list], spec[list])
	}
	if v, ok := spec["activeDeadlineSeconds"].(float64); ok && v > 0 {
		if was, set := old["activeDeadlineSeconds"].(float64); !set || v <= was {
			restore(spec, old, "activeDeadlineSeconds")
		}
	}
	if added(old["tolerations"], spec["tolerations"]) {
		restore(spec, old, "tolerations")
	}
	if was, ok := old["terminationGracePeriodSeconds"].(float64); ok && was < 0 && Equal(spec["terminationGracePeriodSeconds"], 1.0) {
		restore(spec, old, "terminationGracePeriodSeconds")
	}
	if added(spec["schedulingGates"], old["schedulingGates"]) {
		restore(spec, old, "schedulingGates")
	}
	if !Equal(spec, old) {
		return errorf(ReasonInvalid, "Pod %q is invalid: %s", k.Name, forbiddenPodUpdate)
	}
	return nil
}

// keepImages puts the old containers' images into the new containers when
// both lists name the same containers in the same order (so that an image
// change alone leaves the lists equal).
func keepImages(oldList, newList any) {
	olds, _ := oldList.([]any)
	news, _ := newList.([]any)
	if len(olds) != len(news) {
		return
	}
	for i := range news {
		o, _ := olds[i].(map[string]any)
		n, _ := news[i].(map[string]any)
		if o == nil || n == nil || !Equal(o["name"], n["name"]) {
			continue
		}
		if img, ok := n["image"].(string); ok && img != "" {
			restore(n, o, "image")
		}
	}
}

// restore sets field of dst to its value in src (absent when absent).
func restore(dst, src map[string]any, field string) {
	if v, ok := src[field]; ok {
		dst[field] = DeepCopy(v)
	} else {
		delete(dst, field)
	}
}

// added reports whether list b holds every element of list a (b may hold
// more): b only adds to a.
func added(a, b any) bool {
	as, _ := a.([]any)
	bs, _ := b.([]any)
	if a != nil && as == nil || b != nil && bs == nil {
		return false
	}
	for _, x := range as {
		if !containsValue(bs, x) {
			return false
		}
	}
	return true
}

// resizePod is the pods/resize subresource: of the patched pod it keeps
// only the containers' resources and resizePolicy (matched by name), as the
// real subresource drops every other change; the containers must be the
// same, and only cpu and memory may change in their resources.
func resizePod(k Key, cur, patched Object) (Object, error) {
	next := copyObject(cur)
	spec, _ := next["spec"].(map[string]any)
	newSpec, _ := patched["spec"].(map[string]any)
	olds, _ := spec["containers"].([]any)
	news, _ := newSpec["containers"].([]any)
	if len(olds) != len(news) {
		return nil, errorf(ReasonInvalid, "Pod %q is invalid: spec.containers: Forbidden: containers may not be added or removed", k.Name)
	}
	for i := range olds {
		o, _ := olds[i].(map[string]any)
		n, _ := news[i].(map[string]any)
		if o == nil || n == nil || !Equal(o["name"], n["name"]) {
			return nil, errorf(ReasonInvalid, "Pod %q is invalid: spec.containers[%d].name: Forbidden: containers may not be renamed or reordered", k.Name, i)
		}
		if !onlyCPUAndMemory(o["resources"], n["resources"]) {
			return nil, errorf(ReasonInvalid, "Pod %q is invalid: spec.containers[%d].resources: Forbidden: only cpu and memory resources are mutable", k.Name, i)
		}
		restore(o, n, "resources")
		restore(o, n, "resizePolicy")
	}
	return next, nil
}

// onlyCPUAndMemory reports whether two resource requirements differ only in
// the cpu and memory entries of their limits and requests.
func onlyCPUAndMemory(a, b any) bool {
	strip := func(v any) any {
		r, _ := DeepCopy(v).(map[string]any)
		for _, kind := range []string{"limits", "requests"} {
			if l, ok := r[kind].(map[string]any); ok {
				delete(l, "cpu")
				delete(l, "memory")
				if len(l) == 0 {
					delete(r, kind)
				}
			}
		}
		if len(r) == 0 {
			return nil
		}
		return r
	}
	return Equal(strip(a), strip(b))
}
