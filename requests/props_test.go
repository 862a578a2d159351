package requests_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
	"github.com/clonecore/cloneset/worldgen"
)

// decisions reads fuzz bytes one decision at a time (missing bytes read as
// 0), so that the fuzzer and rapid share one generator.
type decisions struct {
	data []byte
	i    int
}

// next returns a decision in [0, n).
func (d *decisions) next(n int) int {
	if n <= 0 {
		return 0
	}
	var b byte
	if d.i < len(d.data) {
		b = d.data[d.i]
	}
	d.i++
	return int(b) % n
}

// serverVersions are the server versions a round is built for: the
// default (the newest behavior), the last one without pods/resize, the
// first one with it, and one written with a provider's suffix.
var serverVersions = []string{"", "v1.31.9", "1.32.0", "v1.37.2-gke.1"}

// roundFromBytes decodes a generated world (worldFromBytes) and then the
// server version its requests are built for.
func roundFromBytes(data []byte) (*model.Scenario, requests.Options) {
	d := &decisions{data: data}
	scn := worldFrom(d)
	return scn, requests.Options{ServerVersion: serverVersions[d.next(len(serverVersions))]}
}

// worldFromBytes decodes a generated world's options from fuzz bytes, one
// byte per decision.
func worldFromBytes(data []byte) *model.Scenario {
	return worldFrom(&decisions{data: data})
}

func worldFrom(d *decisions) *model.Scenario {
	next := d.next
	pct := func(max int) float64 { return float64(next(max+1)) / 100 }
	policies := []string{model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly}
	o := worldgen.Options{
		Seed:                 int64(next(256)<<8 | next(256)),
		Pods:                 next(25),
		Rollout:              next(2) == 1,
		Policy:               policies[next(3)],
		Hooks:                next(2) == 1,
		SpreadConstraints:    next(2) == 1,
		UpdatePriority:       next(2) == 1,
		SpecifiedDelete:      next(3),
		PodsToDelete:         next(3),
		VolumeClaimTemplates: next(3),
		PVCReuse:             next(2) == 1,
		OrphanPVCs:           next(3),
		Terminating:          next(3),
		MinReadySeconds:      int32(next(20)),
		Paused:               next(4) == 0,
		DeletionCosts:        pct(50),
		Updated:              pct(100),
		Hooked:               pct(50),
		History:              next(4),
	}
	if next(2) == 1 {
		o.APIVersion = model.APIVersionV1alpha1
	}
	if o.Policy != model.PolicyInPlaceOnly && next(2) == 1 {
		o.MaxSurge = &model.IntOrPercent{IsString: true, Str: "25%"}
	}
	if next(2) == 1 {
		o.Partition = &model.IntOrPercent{IsString: true, Str: "30%"}
	}
	switch next(8) {
	case 0, 1, 2:
		r := int32(next(40))
		o.Replicas = &r
	case 3: // any int32: beyond the limit it must end in a LimitError, not
		// a plan; below it, it is folded to at most a few thousand pods (a
		// fuzz input that creates 100,000 pods takes seconds)
		r := int32(uint32(next(256))<<24 | uint32(next(256))<<16 | uint32(next(256))<<8 | uint32(next(256)))
		if r >= 0 && r <= clonesetcore.DefaultMaxCreatePods {
			r %= 3000
		}
		o.Replicas = &r
	case 4: // a large world
		o.Pods = 200 + next(256)*4
	}
	o.States = worldgen.States{PreparingDelete: pct(10), PreparingUpdate: pct(10), Updating: pct(10), Updated: pct(10)}
	o.Readiness = worldgen.Readiness{Unscheduled: pct(10), Pending: pct(10), NotReady: pct(10), Maturing: pct(10)}
	// Image pre-download: the gate and jobs of the CloneSet.
	if next(2) == 1 {
		g := model.DefaultFeatureGates()
		g.PreDownloadImageForInPlaceUpdate = true
		o.Gates = &g
	}
	o.ImagePullJobs = next(3)
	return worldgen.Generate(o)
}

// tb is what checkRound needs of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkRound plans a world, builds its requests for the server of opts and
// checks them: Plan and BuildWithOptions leave the world as it was (a
// controller hands them model objects that share maps with its informer
// cache's objects), every request is well-formed for that server, every one
// applies to the world acting as that server (but for the instance-id
// collision upstream has too), the round leaves no more active pods than
// the budgets allow, and planning the world it left again repeats no write
// of the round (idempotence). It returns the world the round left (nil when
// the plan is beyond the limits).
func checkRound(t tb, scn *model.Scenario, opts requests.Options) *model.Scenario {
	t.Helper()
	fresh := scn.DeepCopy()
	plan, err := clonesetcore.Plan(scn)
	var limit *clonesetcore.LimitError
	if errors.As(err, &limit) {
		return nil // a plan beyond the limits is refused, with the field named
	}
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	resize, err := opts.ResizeSubresource()
	if err != nil {
		t.Fatalf("options: %v", err)
	}
	reqs, err := requests.BuildWithOptions(scn, plan, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if !reflect.DeepEqual(fresh, scn) {
		t.Fatalf("Plan or BuildWithOptions modified the world (-before +after):\n%s", cmp.Diff(fresh, scn, cmp.Exporter(func(reflect.Type) bool { return true })))
	}
	for i, r := range reqs {
		if err := wellFormed(r, len(plan.Actions), resize); err != nil {
			t.Fatalf("request %d (%s %s %s): %v", i, r.Verb, r.Resource, r.Name, err)
		}
	}
	if err := resizeOrder(reqs); err != nil {
		t.Fatalf("%v", err)
	}
	before := activePods(scn.Pods)
	w := requests.NewWorld(scn)
	w.GracefulPodDeletion = true
	w.ServerVersion = opts.ServerVersion
	errs, _ := w.ApplyAll(reqs)
	for i, err := range errs {
		if err != nil && err != requests.ErrNotSent && !(requests.ReasonOf(err) == requests.ReasonAlreadyExists && noted(plan, "AlreadyExists")) {
			t.Fatalf("request %d (%s %s %s): %v", i, reqs[i].Verb, reqs[i].Resource, reqs[i].Name, err)
		}
	}
	after := w.Scenario(scn)
	if n, limit := activePods(after.Pods), max(before, plan.Budget.Replicas+plan.Budget.MaxSurge); n > limit {
		t.Fatalf("%d active pods after the round, more than %d (replicas %d + maxSurge %d, or the %d before)", n, limit, plan.Budget.Replicas, plan.Budget.MaxSurge, before)
	}
	again, err := clonesetcore.Plan(after)
	if errors.As(err, &limit) {
		return after // the next round asks for more than the limits allow
	}
	if err != nil {
		t.Fatalf("Plan after the round: %v", err)
	}
	reqs2, err := requests.BuildWithOptions(after, again, opts)
	if err != nil {
		t.Fatalf("Build after the round: %v", err)
	}
	done := map[string]bool{}
	for i, r := range reqs {
		if errs[i] == nil {
			done[writeKey(r)] = true
		}
	}
	for _, r := range reqs2 {
		if r.Resource == requests.ResourceCloneSets && r.Subresource == requests.SubresourceStatus {
			continue // the status is computed anew every round
		}
		if done[writeKey(r)] {
			t.Fatalf("the next round repeats a finished write: %s %s %s %s", r.Verb, r.Resource, r.Name, r.Patch)
		}
	}
	return after
}

// resizeOrder checks the order upstream sends an in-place change in
// (update-and-ordering 4.5): within one action, a pod's resize comes after
// its status patch and before its pod patch.
func resizeOrder(reqs []requests.Request) error {
	type step struct {
		action int
		pod    string
	}
	resized, patched := map[step]bool{}, map[step]bool{}
	for i, r := range reqs {
		if r.Resource != requests.ResourcePods || r.Verb != requests.VerbPatch {
			continue
		}
		k := step{r.Action, r.Name}
		switch r.Subresource {
		case requests.SubresourceResize:
			if patched[k] || resized[k] {
				return fmt.Errorf("request %d: the resize of %s comes after its pod patch or another resize in action %d", i, r.Name, r.Action)
			}
			resized[k] = true
		case requests.SubresourceStatus:
			if resized[k] {
				return fmt.Errorf("request %d: the status patch of %s comes after its resize in action %d", i, r.Name, r.Action)
			}
		default:
			patched[k] = true
		}
	}
	return nil
}

func noted(p *clonesetcore.Result, s string) bool {
	for _, n := range p.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

func activePods(pods []*model.Pod) int {
	n := 0
	for _, p := range pods {
		if p.IsActive() {
			n++
		}
	}
	return n
}

func writeKey(r requests.Request) string {
	return fmt.Sprintf("%s %s/%s %s %s %s", r.Verb, r.Resource, r.Subresource, r.Name, r.Object, r.Patch)
}

var (
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	jsonPatchOp  = map[string]bool{"add": true, "remove": true, "replace": true, "move": true, "copy": true, "test": true}
)

// wellFormed checks one request against the API's rules: a known verb and
// resource, valid names, a create's object that round-trips through JSON and
// names itself, a patch body that is valid JSON of its type, and batch and
// action indexes in range; on a server with the pods/resize subresource
// (resize), a resize patch touches only container cpu and memory, and a pod
// patch no container resources.
func wellFormed(r requests.Request, actions int, resize bool) error {
	if len(r.Name) > 253 || !dnsSubdomain.MatchString(r.Name) {
		return fmt.Errorf("name %q is not a DNS subdomain", r.Name)
	}
	if len(r.Namespace) > 63 || !dnsLabel.MatchString(r.Namespace) {
		return fmt.Errorf("namespace %q is not a DNS label", r.Namespace)
	}
	switch r.Resource {
	case requests.ResourcePods, requests.ResourcePersistentVolumeClaims, requests.ResourceControllerRevisions, requests.ResourceCloneSets:
	case requests.ResourceImagePullJobs:
		if r.Verb == requests.VerbPatch {
			return fmt.Errorf("the controller never patches an ImagePullJob")
		}
	default:
		return fmt.Errorf("unknown resource")
	}
	if r.Tolerated != (r.Resource == requests.ResourceImagePullJobs || r.Resource == requests.ResourceControllerRevisions && r.PatchType == requests.PatchStrategicMerge) {
		return fmt.Errorf("tolerated %v: only the image pre-download writes are", r.Tolerated)
	}
	switch {
	case r.Subresource == "":
	case r.Subresource == requests.SubresourceStatus && r.Verb == requests.VerbPatch:
	case r.Subresource == requests.SubresourceResize && r.Verb == requests.VerbPatch && r.Resource == requests.ResourcePods && resize:
	default:
		return fmt.Errorf("subresource %q with %s %s (resize subresource: %v)", r.Subresource, r.Verb, r.Resource, resize)
	}
	if r.Action < -1 || r.Action >= actions || r.Action == -1 && r.Subresource != requests.SubresourceStatus {
		return fmt.Errorf("action index %d of %d", r.Action, actions)
	}
	if r.Batch < -1 || r.Batch >= 0 && r.Verb != requests.VerbCreate {
		return fmt.Errorf("batch %d on a %s", r.Batch, r.Verb)
	}
	switch r.Verb {
	case requests.VerbCreate:
		if r.Patch != nil || r.PatchType != "" {
			return fmt.Errorf("a create with a patch")
		}
		var obj map[string]any
		if err := json.Unmarshal(r.Object, &obj); err != nil {
			return fmt.Errorf("object: %v", err)
		}
		again, _ := json.Marshal(obj)
		var back map[string]any
		if err := json.Unmarshal(again, &back); err != nil || !jsonEqual(obj, back) {
			return fmt.Errorf("the object does not round-trip through JSON")
		}
		meta, _ := obj["metadata"].(map[string]any)
		if obj["apiVersion"] == nil || obj["kind"] == nil || meta["name"] != r.Name || meta["namespace"] != r.Namespace {
			return fmt.Errorf("the object does not name itself as the request does")
		}
	case requests.VerbPatch:
		var body any
		if err := json.Unmarshal(r.Patch, &body); err != nil {
			return fmt.Errorf("patch: %v", err)
		}
		switch r.PatchType {
		case requests.PatchMerge, requests.PatchStrategicMerge:
			if _, ok := body.(map[string]any); !ok {
				return fmt.Errorf("a %s is not a JSON object", r.PatchType)
			}
			if r.PatchType == requests.PatchStrategicMerge && r.Resource == requests.ResourceCloneSets {
				return fmt.Errorf("a strategic merge patch of a custom resource")
			}
		case requests.PatchJSON:
			ops, ok := body.([]any)
			if !ok || len(ops) == 0 {
				return fmt.Errorf("a JSON patch is a non-empty list")
			}
			for _, o := range ops {
				m, _ := o.(map[string]any)
				p, _ := m["path"].(string)
				if op, _ := m["op"].(string); !jsonPatchOp[op] || !strings.HasPrefix(p, "/") {
					return fmt.Errorf("bad JSON patch operation %v", o)
				}
			}
		default:
			return fmt.Errorf("unknown patch type %q", r.PatchType)
		}
		if r.Resource == requests.ResourcePods && r.Subresource != requests.SubresourceStatus {
			if err := podPatchShape(r, body, resize); err != nil {
				return err
			}
		}
	case requests.VerbDelete:
		if r.Object != nil || r.Patch != nil {
			return fmt.Errorf("a delete with a body")
		}
	default:
		return fmt.Errorf("unknown verb %q", r.Verb)
	}
	return nil
}

// podPatchShape checks the containers of a pod patch: a resize patch is a
// strategic merge patch of spec.containers[*].resources (cpu and memory
// quantities) by container name and nothing else; a pod patch on a server
// with the pods/resize subresource carries no container resources.
func podPatchShape(r requests.Request, body any, resize bool) error {
	top, _ := body.(map[string]any)
	spec, _ := top["spec"].(map[string]any)
	list, _ := spec["containers"].([]any)
	if r.Subresource != requests.SubresourceResize {
		for _, c := range list {
			if m, _ := c.(map[string]any); resize && m["resources"] != nil {
				return fmt.Errorf("a pod patch changes container resources on a server with pods/resize: %s", r.Patch)
			}
		}
		return nil
	}
	if r.PatchType != requests.PatchStrategicMerge || len(top) != 1 || len(spec) != 1 || len(list) == 0 {
		return fmt.Errorf("a resize patch is a strategic merge patch of spec.containers only: %s", r.Patch)
	}
	names := map[string]bool{}
	for _, c := range list {
		m, _ := c.(map[string]any)
		name, _ := m["name"].(string)
		res, _ := m["resources"].(map[string]any)
		if name == "" || names[name] || len(m) != 2 || len(res) == 0 {
			return fmt.Errorf("a resize patch entry holds one container's name and resources: %v", c)
		}
		names[name] = true
		for kind, v := range res {
			vals, _ := v.(map[string]any)
			if kind != "limits" && kind != "requests" || len(vals) == 0 {
				return fmt.Errorf("resize of %s: %s is not a resource list", name, kind)
			}
			for res, q := range vals {
				text, _ := q.(string)
				if _, err := model.ParseQuantity(text); err != nil || res != "cpu" && res != "memory" {
					return fmt.Errorf("resize of %s: %s.%s = %v: only cpu and memory quantities resize in place", name, kind, res, q)
				}
			}
		}
	}
	return nil
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestPropertyRequests checks checkRound on generated worlds, for each
// server version.
func TestPropertyRequests(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		data := rapid.SliceOfN(rapid.Byte(), 24, 48).Draw(rt, "decisions")
		scn, opts := roundFromBytes(data)
		checkRound(rt, scn, opts)
	})
}

// FuzzRequests checks checkRound on worlds decoded from the fuzz bytes (see
// roundFromBytes).
//
// Run it with: go test -run=^$ -fuzz=FuzzRequests -fuzztime=5m ./requests/
func FuzzRequests(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{1, 2, 20, 1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 1, 5, 0, 10, 50, 20, 2, 0, 1, 1, 1, 30},
		{9, 9, 10, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 100, 0, 0, 1, 0, 0, 1, 5},
		[]byte("a longer seed with many different decisions in it: 0123456789abcdef"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scn, opts := roundFromBytes(data)
		checkRound(t, scn, opts)
	})
}
