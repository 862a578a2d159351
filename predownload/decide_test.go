package predownload

import (
	"reflect"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// containers is a name=image list: "main=nginx:1".
func template(containers ...string) model.PodTemplate {
	t := model.PodTemplate{Labels: map[string]string{"app": "web"}}
	var raw []any
	for _, c := range containers {
		name, image, _ := strings.Cut(c, "=")
		t.Spec.Containers = append(t.Spec.Containers, model.Container{Name: name, Image: image})
		raw = append(raw, map[string]any{"name": name, "image": image})
	}
	t.Raw = map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"containers": raw},
	}
	return t
}

func revision(name string, containers ...string) *model.Revision {
	return &model.Revision{Name: name, Labels: map[string]string{"app": "web", model.LabelControllerRevisionHash: strings.TrimPrefix(name, "web-")},
		Template: template(containers...), HasTemplate: true}
}

func ptr[T any](v T) *T { return &v }

func owned(name string) *model.ImagePullJob {
	return &model.ImagePullJob{Name: name, Namespace: "ns", UID: "uid-" + name,
		OwnerReferences: []model.OwnerReference{{APIVersion: "apps.kruise.io/v1beta1", Kind: "CloneSet", Name: "web", UID: "uid-web", Controller: true}}}
}

// input is a rollout from web-1 (nginx:1) to web-2 (nginx:2) of 5 replicas,
// InPlaceIfPossible, partition 1, the gate on.
func input() Input {
	cs := &model.CloneSet{Name: "web", Namespace: "ns", UID: "uid-web"}
	cs.Spec.Replicas = ptr(int32(5))
	cs.Spec.Selector = &model.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	cs.Spec.Template = template("main=nginx:2")
	cs.Spec.UpdateStrategy = model.UpdateStrategy{Type: model.UpdateStrategyRollingUpdate, RollingUpdate: &model.RollingUpdateStrategy{
		PodUpdatePolicy: model.PolicyInPlaceIfPossible, Partition: ptr(model.FromInt(1)),
	}}
	cs.Status.UpdateRevision = "web-2"
	return Input{CloneSet: cs, Current: revision("web-1", "main=nginx:1"), Update: revision("web-2", "main=nginx:2"),
		Gates: model.FeatureGates{PreDownloadImageForInPlaceUpdate: true}}
}

// TestDecide is rules P1-P6 of docs/spec/image-predownload.md, one case
// each way.
func TestDecide(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(*Input)
		outcome Outcome
		label   string
		create  []Job
		delete  []string
		reason  string // a fragment of Decision.Reason
	}{
		{"P1 gate off", func(in *Input) { in.Gates.PreDownloadImageForInPlaceUpdate = false }, Off, "", nil, nil, ""},
		{"P1 gate off, rollout done: no delete", func(in *Input) {
			in.Gates.PreDownloadImageForInPlaceUpdate = false
			in.Current = in.Update
			in.Jobs = []*model.ImagePullJob{owned("web-2-main")}
		}, Off, "", nil, nil, ""},
		{"P2 rollout done: the CloneSet's jobs, in name order", func(in *Input) {
			in.Current = in.Update
			other := owned("x-other")
			other.OwnerReferences[0].UID, other.OwnerReferences[0].Name = "uid-x", "x"
			notController := owned("a-not-controller")
			notController.OwnerReferences[0].Controller = false
			in.Jobs = []*model.ImagePullJob{owned("web-2-side"), other, owned("web-2-main"), notController, nil}
		}, Done, "", nil, []string{"web-2-main", "web-2-side"}, "the CloneSet's ImagePullJobs are deleted: web-2-main, web-2-side"},
		{"P2 rollout done, no job", func(in *Input) { in.Current = in.Update }, Done, "", nil, nil, ""},
		{"P2 rollout done: uid missing, owned by kind and name", func(in *Input) {
			in.Current = in.Update
			j := owned("web-2-main")
			j.OwnerReferences[0].UID = ""
			in.Jobs = []*model.ImagePullJob{j}
		}, Done, "", nil, []string{"web-2-main"}, ""},
		{"P3 waits for updated ready pods", func(in *Input) {
			in.CloneSet.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{ImagePreDownloadMinUpdatedReadyPods: ptr(int32(2))}
			in.CloneSet.Status.UpdatedReadyReplicas = 1
		}, Waiting, "", nil, nil, "1 updated ready pods"},
		{"P3 enough updated ready pods", func(in *Input) {
			in.CloneSet.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{ImagePreDownloadMinUpdatedReadyPods: ptr(int32(2))}
			in.CloneSet.Status.UpdatedReadyReplicas = 2
		}, Created, model.LabelImagePreDownloadCreated, []Job{{"web-2-main", "main", "nginx:2"}}, nil, ""},
		{"P3 the status counts another revision: 0 updated ready pods", func(in *Input) {
			in.CloneSet.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{ImagePreDownloadMinUpdatedReadyPods: ptr(int32(1))}
			in.CloneSet.Status.UpdatedReadyReplicas = 4
			in.CloneSet.Status.UpdateRevision = "web-1"
		}, Waiting, "", nil, nil, "0 updated ready pods"},
		{"P4 labelled created", func(in *Input) { in.Update.Labels[model.LabelImagePreDownloadCreated] = "true" }, Marked, "", nil, nil, "decided before"},
		{"P4 labelled ignored, any value", func(in *Input) { in.Update.Labels[model.LabelImagePreDownloadIgnored] = "" }, Marked, "", nil, nil, "decided before"},
		{"P4 after P3", func(in *Input) {
			in.Update.Labels[model.LabelImagePreDownloadIgnored] = "true"
			in.CloneSet.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{ImagePreDownloadMinUpdatedReadyPods: ptr(int32(2))}
		}, Waiting, "", nil, nil, ""},
		{"P5a no rollingUpdate", func(in *Input) { in.CloneSet.Spec.UpdateStrategy.RollingUpdate = nil }, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "no rollingUpdate"},
		{"P5a ReCreate", func(in *Input) { in.CloneSet.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy = model.PolicyReCreate }, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "ReCreate"},
		{"P5a an empty policy is not ReCreate", func(in *Input) { in.CloneSet.Spec.UpdateStrategy.RollingUpdate.PodUpdatePolicy = "" }, Created, model.LabelImagePreDownloadCreated, []Job{{"web-2-main", "main", "nginx:2"}}, nil, ""},
		{"P5b replicas 3", func(in *Input) { in.CloneSet.Spec.Replicas = ptr(int32(3)) }, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "replicas 3 <= 3"},
		{"P5b replicas absent (1)", func(in *Input) { in.CloneSet.Spec.Replicas = nil }, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "replicas 1 <= 3"},
		{"P5b replicas 4", func(in *Input) { in.CloneSet.Spec.Replicas = ptr(int32(4)) }, Created, model.LabelImagePreDownloadCreated, []Job{{"web-2-main", "main", "nginx:2"}}, nil, ""},
		{"P5c one batch", func(in *Input) {
			ru := in.CloneSet.Spec.UpdateStrategy.RollingUpdate
			ru.Partition, ru.MaxUnavailable = nil, ptr(model.FromString("100%"))
		}, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "one batch (partition 0, maxUnavailable 5 >= replicas 5)"},
		{"P5c one batch, rounded down", func(in *Input) {
			ru := in.CloneSet.Spec.UpdateStrategy.RollingUpdate
			ru.Partition, ru.MaxUnavailable = nil, ptr(model.FromString("99%"))
		}, Created, model.LabelImagePreDownloadCreated, []Job{{"web-2-main", "main", "nginx:2"}}, nil, ""},
		{"P5c partition 0% is 0", func(in *Input) {
			ru := in.CloneSet.Spec.UpdateStrategy.RollingUpdate
			ru.Partition, ru.MaxUnavailable = ptr(model.FromString("0%")), ptr(model.FromInt(7))
		}, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "one batch"},
		{"P5c a partition keeps pods: not one batch", func(in *Input) {
			in.CloneSet.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr(model.FromInt(5))
		}, Created, model.LabelImagePreDownloadCreated, []Job{{"web-2-main", "main", "nginx:2"}}, nil, ""},
		{"P5c a partition that does not parse: no mark", func(in *Input) {
			in.CloneSet.Spec.UpdateStrategy.RollingUpdate.Partition = ptr(model.FromString("x"))
		}, Unresolved, "", nil, nil, "does not parse"},
		{"P5d not in place", func(in *Input) {
			in.Update = revision("web-2", "main=nginx:2", "side=busybox")
		}, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "no in-place update from web-1"},
		{"P5d no stored template", func(in *Input) { in.Current.HasTemplate = false }, Ignored, model.LabelImagePreDownloadIgnored, nil, nil, "no stored template"},
		{"P6 only the changed images, template order", func(in *Input) {
			in.Current = revision("web-1", "b=x:1", "a=y:1", "c=z:1")
			in.Update = revision("web-2", "b=x:2", "a=y:1", "c=z:2")
		}, Created, model.LabelImagePreDownloadCreated, []Job{{"web-2-b", "b", "x:2"}, {"web-2-c", "c", "z:2"}}, nil, "b=x:2, c=z:2"},
		{"P6 no image change: labelled created, no job", func(in *Input) {
			in.Update = revision("web-2", "main=nginx:1")
			in.Update.Template.Labels["v"] = "2"
			in.Update.Template.Raw["metadata"].(map[string]any)["labels"].(map[string]any)["v"] = "2"
		}, Created, model.LabelImagePreDownloadCreated, nil, nil, "no container image changes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := input()
			c.edit(&in)
			d := Decide(in)
			if d.Outcome != c.outcome || d.Label != c.label {
				t.Fatalf("outcome %s label %q, want %s %q (%s)", d.Outcome, d.Label, c.outcome, c.label, d.Reason)
			}
			if !reflect.DeepEqual(d.Create, c.create) {
				t.Errorf("create %v, want %v", d.Create, c.create)
			}
			var deleted []string
			for _, j := range d.Delete {
				deleted = append(deleted, j.Name)
			}
			if !reflect.DeepEqual(deleted, c.delete) {
				t.Errorf("delete %v, want %v", deleted, c.delete)
			}
			if !strings.Contains(d.Reason, c.reason) {
				t.Errorf("reason %q lacks %q", d.Reason, c.reason)
			}
			if (d.Reason == "") != (c.outcome == Off || c.outcome == Done && len(c.delete) == 0) {
				t.Errorf("reason %q: every decision but Off and Done without jobs explains itself", d.Reason)
			}
		})
	}
}

// TestJobsTwiceNamed: a container name written twice keeps its first
// place; each differing occurrence overwrites its image, as upstream's map
// of names does.
func TestJobsTwiceNamed(t *testing.T) {
	cur := revision("web-1", "a=x:1")
	upd := revision("web-2", "a=x:2", "b=y:1", "a=x:3", "a=x:1")
	got := jobs(cur, upd)
	want := []Job{{"web-2-a", "a", "x:3"}, {"web-2-b", "b", "y:1"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("jobs %v, want %v", got, want)
	}
}

// TestSettings: the parallelism, timeout and minimum of the in-place
// update strategy, and their defaults.
func TestSettings(t *testing.T) {
	in := input()
	cs := in.CloneSet
	if p, to, m := Parallelism(cs), TimeoutSeconds(cs), MinUpdatedReadyPods(cs); p != model.FromInt(1) || to != 300 || m != 0 {
		t.Errorf("defaults: %v %d %d, want 1 300 0", p, to, m)
	}
	cs.Spec.UpdateStrategy.RollingUpdate.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{
		ImagePreDownloadParallelism: ptr(model.FromString("3")), ImagePreDownloadTimeoutSeconds: ptr(int32(60)), ImagePreDownloadMinUpdatedReadyPods: ptr(int32(2)),
	}
	if p, to, m := Parallelism(cs), TimeoutSeconds(cs), MinUpdatedReadyPods(cs); p != model.FromString("3") || to != 60 || m != 2 {
		t.Errorf("set: %v %d %d, want \"3\" 60 2", p, to, m)
	}
	cs.Spec.UpdateStrategy.RollingUpdate = nil
	if p, to, m := Parallelism(cs), TimeoutSeconds(cs), MinUpdatedReadyPods(cs); p != model.FromInt(1) || to != 300 || m != 0 {
		t.Errorf("no rollingUpdate: %v %d %d, want 1 300 0", p, to, m)
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Off: "Off", Done: "Done", Waiting: "Waiting", Marked: "Marked", Unresolved: "Unresolved", Ignored: "Ignored", Created: "Created", 42: "Outcome(42)"} {
		if o.String() != want {
			t.Errorf("%d: %q, want %q", int(o), o.String(), want)
		}
	}
}
