package requests_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
	"github.com/clonecore/cloneset/requests"
)

// TestServerVersionOption: the forms a server version comes in (discovery's
// gitVersion, a provider's suffix, a person's MAJOR.MINOR) and the 1.32
// boundary of the pods/resize subresource; anything else is an error that
// names the option.
func TestServerVersionOption(t *testing.T) {
	for _, c := range []struct {
		version string
		resize  bool
		bad     bool
	}{
		{version: "", resize: true}, // the newest behavior
		{version: "v1.37.2", resize: true},
		{version: "1.31", resize: false},
		{version: "v1.31.12", resize: false},
		{version: "1.32", resize: true},
		{version: "1.32.0-rc.1+abc", resize: true},
		{version: "v1.32.0", resize: true},
		{version: "v1.33.1-gke.5", resize: true},
		{version: "v1.32+gke.1", resize: true},
		{version: "v1.28+eks.1", resize: false},
		{version: " v1.30.0 ", resize: false},
		{version: "2.0", resize: true},
		{version: "0.99", resize: false},
		{version: "garbage", bad: true},
		{version: "1", bad: true},
		{version: "v", bad: true},
		{version: "1.x", bad: true},
		{version: "1.32x", bad: true},
		{version: "1..2", bad: true},
		{version: "1.32.", bad: true},
		{version: "1.32.x", bad: true},
		{version: "+1.32", bad: true},
		{version: "1a.32", bad: true},
		{version: "99999999999999999999.1", bad: true},
	} {
		opts := requests.Options{ServerVersion: c.version}
		resize, err := opts.ResizeSubresource()
		switch {
		case c.bad && (err == nil || !strings.Contains(err.Error(), "ServerVersion") || !strings.Contains(err.Error(), fmt.Sprintf("%q", c.version))):
			t.Errorf("%q: err = %v, want an error naming the option and the value", c.version, err)
		case !c.bad && err != nil:
			t.Errorf("%q: %v", c.version, err)
		case !c.bad && resize != c.resize:
			t.Errorf("%q: resize subresource %v, want %v", c.version, resize, c.resize)
		}
		if (opts.Validate() != nil) != c.bad {
			t.Errorf("%q: Validate() = %v", c.version, opts.Validate())
		}
	}
}

// resizeContainer is a container of a resize world: image, resizePolicy
// entries, and cpu and memory requests and limits.
type resizeContainer struct {
	name, image, policy             string
	cpu, memory, cpuLimit, memLimit string
}

// resizeWorldSpec describes a resize world: a CloneSet "web" in namespace
// prod with the vertical-scaling gate, updated in place (InPlaceIfPossible,
// maxUnavailable, grace period), whose template has the containers cur, and
// pods web-a, web-b, ... at revision web-1, whose template has the
// containers old.
type resizeWorldSpec struct {
	pods, maxUnavailable, grace int
	old, cur                    []resizeContainer
}

// text renders the world as a scenario stream.
func (w resizeWorldSpec) text() string {
	containers := func(cs []resizeContainer, indent string) string {
		var b strings.Builder
		for _, c := range cs {
			fmt.Fprintf(&b, "%s- {name: %s, image: %q, resizePolicy: [%s], resources: {requests: {cpu: %q, memory: %q}, limits: {cpu: %q, memory: %q}}}\n",
				indent, c.name, c.image, c.policy, c.cpu, c.memory, c.cpuLimit, c.memLimit)
		}
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: clonesetcore/v1alpha1
kind: Scenario
now: "2026-01-01T01:00:00Z"
featureGates: {InPlaceWorkloadVerticalScaling: true}
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: prod, uid: uid-web, generation: 2}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
%s  updateStrategy:
    type: RollingUpdate
    rollingUpdate:
      podUpdatePolicy: InPlaceIfPossible
      maxUnavailable: %d
      inPlaceUpdateStrategy: {gracePeriodSeconds: %d}
status: {observedGeneration: 1, replicas: %d, readyReplicas: %d, availableReplicas: %d, currentRevision: web-1, updateRevision: web-1}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: web-1, namespace: prod, uid: uid-rev1, labels: {app: web}}
revision: 1
data:
  spec:
    template:
      $patch: replace
      metadata: {labels: {app: web}}
      spec:
        containers:
%s`, w.pods, containers(w.cur, "      "), w.maxUnavailable, w.grace, w.pods, w.pods, w.pods, containers(w.old, "        "))
	for i := range w.pods {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Pod
metadata:
  name: web-%[1]c
  namespace: prod
  uid: uid-web-%[1]c
  creationTimestamp: "2026-01-01T00:00:0%[2]dZ"
  labels: {app: web, apps.kruise.io/cloneset-instance-id: "%[1]c", controller-revision-hash: web-1, pod-template-hash: "1", lifecycle.apps.kruise.io/state: Normal}
  ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: CloneSet, name: web, uid: uid-web, controller: true}]
spec:
  nodeName: n1
  readinessGates: [{conditionType: InPlaceUpdateReady}]
  containers:
%[3]sstatus:
  phase: Running
  conditions:
  - {type: Ready, status: "True", lastTransitionTime: "2026-01-01T00:01:00Z"}
  - {type: InPlaceUpdateReady, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z"}
  containerStatuses:
`, 'a'+i, i, containers(w.old, "  "))
		for _, c := range w.old {
			fmt.Fprintf(&b, "  - {name: %s, image: %q, imageID: \"sha-%s\", ready: true}\n", c.name, c.image, c.image)
		}
	}
	return b.String()
}

// resizeWorld is the resize world of one pod web-a with one container
// "main" (image nginx:1, cpu 250m/1, memory 256Mi/512Mi, resizePolicy
// policy) whose template sets its image and cpu request.
func resizeWorld(image, cpuRequest, policy string, grace int) string {
	old := resizeContainer{name: "main", image: "nginx:1", policy: policy, cpu: "250m", memory: "256Mi", cpuLimit: "1", memLimit: "512Mi"}
	cur := old
	cur.image, cur.cpu = image, cpuRequest
	return resizeWorldSpec{pods: 1, maxUnavailable: 1, grace: grace, old: []resizeContainer{old}, cur: []resizeContainer{cur}}.text()
}

// describeRequests names requests one per entry: "patch pods/resize web-a
// {...}" (the body only for pod patches).
func describeRequests(reqs []requests.Request) []string {
	var out []string
	for _, r := range reqs {
		what := string(r.Verb) + " " + string(r.Resource)
		if r.Subresource != "" {
			what += "/" + r.Subresource
		}
		if r.Resource == requests.ResourcePods && r.Subresource != requests.SubresourceStatus {
			what += " " + string(r.Patch)
		}
		out = append(out, what)
	}
	return out
}

// TestResizeRequestsByVersion: update-and-ordering 4.5 on each side of the
// 1.32 boundary. Before 1.32 the pod patch carries the resources (one
// write); from 1.32 they go to pods/resize first, then the pod patch
// carries the rest; an image-only change sends no resize; a change that
// restarts a container sets InPlaceUpdateReady False before both.
func TestResizeRequestsByVersion(t *testing.T) {
	const (
		noRestart = "{resourceName: cpu, restartPolicy: NotRequired}"
		restart   = "{resourceName: cpu, restartPolicy: RestartContainer}"
	)
	resize := `patch pods/resize {"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]}}`
	for _, c := range []struct {
		name, version, image, cpu, policy string
		want                              []string // the requests of the in-place action; "pod:" prefixes what the pod patch's containers hold
	}{
		{"1.31 resources", "v1.31.4", "nginx:1", "500m", noRestart,
			[]string{`pod:[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]`}},
		{"1.32 resources", "v1.32.0", "nginx:1", "500m", noRestart,
			[]string{resize, "pod:"}},
		{"newest resources", "", "nginx:1", "500m", noRestart,
			[]string{resize, "pod:"}},
		{"1.32 image only", "1.32", "nginx:2", "250m", noRestart,
			[]string{"patch pods/status", `pod:[{"image":"nginx:2","name":"main"}]`}},
		{"1.31 image only", "1.31", "nginx:2", "250m", noRestart,
			[]string{"patch pods/status", `pod:[{"image":"nginx:2","name":"main"}]`}},
		{"1.32 image and resources", "v1.33.1-gke.5", "nginx:2", "500m", noRestart,
			[]string{"patch pods/status", resize, `pod:[{"image":"nginx:2","name":"main"}]`}},
		{"1.31 image and resources", "1.31.0", "nginx:2", "500m", noRestart,
			[]string{"patch pods/status", `pod:[{"image":"nginx:2","name":"main","resources":{"requests":{"cpu":"500m"}}}]`}},
		{"1.32 resources restarting", "1.32.0-rc.1+abc", "nginx:1", "500m", restart,
			[]string{"patch pods/status", resize, "pod:"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			scn, err := manifest.LoadBytes([]byte(resizeWorld(c.image, c.cpu, c.policy, 0)), "resize.yaml")
			if err != nil {
				t.Fatal(err)
			}
			plan, err := clonesetcore.Plan(scn)
			if err != nil {
				t.Fatal(err)
			}
			reqs, err := requests.BuildWithOptions(scn, plan, requests.Options{ServerVersion: c.version})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range reqs {
				if r.Action < 0 || plan.Actions[r.Action].Type != model.ActionUpdatePodInPlace {
					continue
				}
				if r.Resource == requests.ResourcePods && r.Subresource == "" {
					got = append(got, "pod:"+podPatchContainers(t, r))
					continue
				}
				got = append(got, describeRequests([]requests.Request{r})...)
				if r.Subresource == requests.SubresourceResize && (r.PatchType != requests.PatchStrategicMerge || r.Preconditions == nil || r.Preconditions.UID != "uid-web-a") {
					t.Errorf("resize %+v: want a strategic merge patch with the pod's uid as precondition", r)
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("requests of the in-place update:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			// The world of the same server takes them, and ends with the
			// template's resources and image.
			w := requests.NewWorld(scn)
			w.ServerVersion = c.version
			if errs, ok := w.ApplyAll(reqs); !ok {
				t.Fatalf("the world refuses the requests: %v", errs)
			}
			ctr := w.Pods["web-a"].Spec.Containers[0]
			if ctr.Image != c.image || ctr.Resources.Requests["cpu"].String() != c.cpu {
				t.Errorf("after the round: image %s cpu %s, want %s %s", ctr.Image, ctr.Resources.Requests["cpu"], c.image, c.cpu)
			}
		})
	}
}

// podPatchContainers returns spec.containers of a pod patch as JSON ("" when
// it has none).
func podPatchContainers(t *testing.T, r requests.Request) string {
	t.Helper()
	list := at(decode(t, r.Patch), "spec.containers")
	if list == nil {
		return ""
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResizePatchPod: a PatchPod action (the end of a grace period, the next
// in-place batch) sends its resources the same way: only a resize when
// nothing else changes, the resize then the pod patch otherwise.
func TestResizePatchPod(t *testing.T) {
	scn, err := manifest.LoadBytes([]byte(resizeWorld("nginx:1", "250m", "", 0)), "resize.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cpu := map[string]map[string]string{"main": {"cpu": "750m"}}
	for _, c := range []struct {
		name    string
		version string
		action  model.Action
		want    []string
	}{
		{"resources only", "", model.Action{Type: model.ActionPatchPod, Pod: "web-a", SetResources: resourceValues(cpu)},
			[]string{`patch pods/resize {"spec":{"containers":[{"name":"main","resources":{"limits":{"cpu":"750m"}}}]}}`}},
		{"resources and a label", "", model.Action{Type: model.ActionPatchPod, Pod: "web-a", SetResources: resourceValues(cpu), SetLabels: map[string]string{"x": "y"}},
			[]string{`patch pods/resize {"spec":{"containers":[{"name":"main","resources":{"limits":{"cpu":"750m"}}}]}}`,
				`patch pods {"metadata":{"labels":{"x":"y"}}}`}},
		{"resources before 1.32", "1.31", model.Action{Type: model.ActionPatchPod, Pod: "web-a", SetResources: resourceValues(cpu)},
			[]string{`patch pods {"spec":{"containers":[{"name":"main","resources":{"limits":{"cpu":"750m"}}}]}}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := &clonesetcore.Result{Actions: []model.Action{c.action}}
			plan.Status.WriteSkipped = true
			reqs, err := requests.BuildWithOptions(scn, plan, requests.Options{ServerVersion: c.version})
			if err != nil {
				t.Fatal(err)
			}
			if got := describeRequests(reqs); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// resourceValues is a PatchPod's SetResources with only limits.
func resourceValues(limits map[string]map[string]string) map[string]model.ResourceValues {
	out := map[string]model.ResourceValues{}
	for name, l := range limits {
		out[name] = model.ResourceValues{Limits: l}
	}
	return out
}

// TestBadServerVersion: an unparsable version fails Build and the world,
// naming the option.
func TestBadServerVersion(t *testing.T) {
	scn, err := manifest.LoadBytes([]byte(resizeWorld("nginx:1", "500m", "", 0)), "resize.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := clonesetcore.Plan(scn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := requests.BuildWithOptions(scn, plan, requests.Options{ServerVersion: "one.thirty"}); err == nil || !strings.Contains(err.Error(), "ServerVersion") {
		t.Errorf("Build: err = %v", err)
	}
	if _, err := requests.ByActionWithOptions(scn, plan, requests.Options{ServerVersion: "one.thirty"}); err == nil {
		t.Error("ByAction: no error")
	}
	w := requests.NewWorld(scn)
	w.ServerVersion = "one.thirty"
	err = w.Apply(requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Namespace: "prod", Name: "web-a",
		PatchType: requests.PatchMerge, Patch: []byte(`{"metadata":{"labels":{"x":"y"}}}`)})
	if err == nil || !strings.Contains(err.Error(), "ServerVersion") {
		t.Errorf("World: err = %v", err)
	}
}

// TestWorldPodUpdateRule: the world acts as the server of its version. From
// 1.32 a pod patch that changes container resources is refused with the
// real server's message, pods/resize takes them and nothing else; before
// 1.32 the pod patch takes them and there is no pods/resize.
func TestWorldPodUpdateRule(t *testing.T) {
	patch := func(sub, body string) requests.Request {
		return requests.Request{Verb: requests.VerbPatch, Resource: requests.ResourcePods, Subresource: sub, Namespace: "prod", Name: "web-a",
			PatchType: requests.PatchStrategicMerge, Patch: []byte(body), Preconditions: &requests.Preconditions{UID: "uid-web-a"}}
	}
	resources := `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]}}`
	for _, c := range []struct {
		name, version string
		req           requests.Request
		reason        requests.Reason // "" for success
		message       string
	}{
		{"resources in a pod patch", "", patch("", resources), requests.ReasonInvalid,
			`Pod "web-a" is invalid: spec: Forbidden: pod updates may not change fields other than ` + "`spec.containers[*].image`"},
		{"resources in a pod patch, 1.32", "v1.32.3", patch("", resources), requests.ReasonInvalid, "pod updates may not change fields"},
		{"the same resources in a pod patch", "", patch("", `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"0.25"}}}]}}`), "", ""},
		{"an image in a pod patch", "", patch("", `{"spec":{"containers":[{"name":"main","image":"nginx:2"}]}}`), "", ""},
		{"resources in a pod patch, 1.31", "1.31", patch("", resources), "", ""},
		{"resize", "", patch(requests.SubresourceResize, resources), "", ""},
		{"resize, 1.31", "1.31", patch(requests.SubresourceResize, resources), requests.ReasonNotFound, "pods/resize"},
		{"resize with an image", "", patch(requests.SubresourceResize, `{"spec":{"containers":[{"name":"main","image":"nginx:2"}]}}`),
			requests.ReasonInvalid, "pods/resize changes only container resources"},
		{"resize with a label", "", patch(requests.SubresourceResize, `{"metadata":{"labels":{"x":"y"}},`+resources[1:]),
			requests.ReasonInvalid, "pods/resize changes only container resources"},
		{"resize of an unknown container", "", patch(requests.SubresourceResize, `{"spec":{"containers":[{"name":"nope","resources":{"requests":{"cpu":"1"}}}]}}`),
			requests.ReasonInvalid, "no container"},
		{"resize as a merge patch", "", func() requests.Request {
			r := patch(requests.SubresourceResize, resources)
			r.PatchType = requests.PatchMerge
			return r
		}(), requests.ReasonInvalid, "strategic merge patch"},
		{"resize of another uid", "", func() requests.Request {
			r := patch(requests.SubresourceResize, resources)
			r.Preconditions.UID = "uid-other"
			return r
		}(), requests.ReasonConflict, "uid"},
		{"resize of a claim", "", func() requests.Request {
			r := patch(requests.SubresourceResize, resources)
			r.Resource = requests.ResourcePersistentVolumeClaims
			return r
		}(), requests.ReasonNotFound, "persistentvolumeclaims/resize"},
	} {
		t.Run(c.name, func(t *testing.T) {
			scn, err := manifest.LoadBytes([]byte(resizeWorld("nginx:1", "250m", "", 0)), "resize.yaml")
			if err != nil {
				t.Fatal(err)
			}
			w := requests.NewWorld(scn)
			w.ServerVersion = c.version
			before := w.Pods["web-a"].DeepCopy()
			err = w.Apply(c.req)
			if requests.ReasonOf(err) != c.reason || err != nil && !strings.Contains(err.Error(), c.message) {
				t.Fatalf("err = %v, want reason %q with %q", err, c.reason, c.message)
			}
			after := w.Pods["web-a"]
			if err != nil && (after.ResourceVersion != before.ResourceVersion || !after.Spec.Containers[0].Resources.Equal(before.Spec.Containers[0].Resources)) {
				t.Error("a refused request changed the pod")
			}
			if err == nil && strings.Contains(string(c.req.Patch), "500m") && after.Spec.Containers[0].Resources.Requests["cpu"].String() != "500m" {
				t.Errorf("cpu request %s after the write", after.Spec.Containers[0].Resources.Requests["cpu"])
			}
		})
	}
}

// resizeWorldFrom decodes a world with the vertical-scaling gate whose
// template changes the cpu, memory and image of some of its one or two
// containers (cpu and memory only, requests below limits: the QoS class
// stays Burstable, so the update is in place), with or without a grace
// period and a resizePolicy that restarts a container.
func resizeWorldFrom(d *decisions) *model.Scenario {
	cpus := []string{"100m", "250m", "500m", "1", "2"}
	mems := []string{"64Mi", "128Mi", "256Mi", "1Gi", "2Gi"}
	w := resizeWorldSpec{pods: 1 + d.next(4)}
	names := []string{"main", "side"}[:1+d.next(2)]
	w.grace = []int{0, 0, 30}[d.next(3)]
	w.maxUnavailable = 1 + d.next(w.pods)
	container := func(name, image, policy string, cpu, mem int) resizeContainer {
		return resizeContainer{name: name, image: image, policy: policy, cpu: cpus[cpu], memory: mems[mem], cpuLimit: cpus[cpu+1], memLimit: mems[mem+1]}
	}
	for _, n := range names {
		cpu, mem, policy := d.next(len(cpus)-1), d.next(len(mems)-1), ""
		if d.next(3) == 0 {
			policy = "{resourceName: cpu, restartPolicy: RestartContainer}"
		}
		w.old = append(w.old, container(n, n+":1", policy, cpu, mem))
		if d.next(2) == 1 {
			cpu = d.next(len(cpus) - 1)
		}
		if d.next(2) == 1 {
			mem = d.next(len(mems) - 1)
		}
		image := n + ":1"
		if d.next(3) == 0 {
			image = n + ":2"
		}
		w.cur = append(w.cur, container(n, image, policy, cpu, mem))
	}
	text := w.text()
	scn, err := manifest.LoadBytes([]byte(text), "resize-world.yaml")
	if err != nil {
		panic(fmt.Sprintf("the generated world does not load: %v\n%s", err, text))
	}
	return scn
}

// checkResizeRounds runs two rounds on a resize world for a server before
// 1.32 and for the newest (checkRound each; the second after the grace
// period), and checks that both servers end with the same objects: the
// version changes how the requests carry out a plan, never what they do.
func checkResizeRounds(t tb, data []byte) {
	t.Helper()
	var ends [][]byte
	for _, version := range []string{"v1.31.9", ""} {
		scn := resizeWorldFrom(&decisions{data: data})
		opts := requests.Options{ServerVersion: version}
		after := checkRound(t, scn, opts)
		after.Now = after.Now.Add(31 * time.Second)
		after = checkRound(t, after, opts)
		ends = append(ends, worldJSON(t, after))
	}
	if !bytes.Equal(ends[0], ends[1]) {
		t.Fatalf("a server before 1.32 and a newer one end with different objects:\n%s\n---\n%s", ends[0], ends[1])
	}
}

// worldJSON encodes a world's objects without their resource versions
// (which count the writes, one more with a resize).
func worldJSON(t tb, s *model.Scenario) []byte {
	t.Helper()
	s.CloneSet.ResourceVersion = ""
	for _, p := range s.Pods {
		p.ResourceVersion = ""
	}
	for _, r := range s.Revisions {
		r.ResourceVersion = ""
	}
	b, err := manifest.EncodeJSON(s)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

// TestPropertyResizeRounds checks checkResizeRounds on generated resize
// worlds.
func TestPropertyResizeRounds(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		checkResizeRounds(rt, rapid.SliceOfN(rapid.Byte(), 8, 24).Draw(rt, "decisions"))
	})
}

// FuzzResizeRequests checks checkResizeRounds on resize worlds decoded from
// the fuzz bytes (see resizeWorldFrom).
//
// Run it with: go test -run=^$ -fuzz=FuzzResizeRequests -fuzztime=5m ./requests/
func FuzzResizeRequests(f *testing.F) {
	for _, seed := range [][]byte{{}, {3, 1, 0, 2, 1, 1, 0, 1, 2, 1, 1, 0, 3, 0, 1, 1, 2, 0}, {0, 0, 2, 0, 0, 1, 1, 0, 1, 0, 0}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkResizeRounds(t, data)
	})
}
