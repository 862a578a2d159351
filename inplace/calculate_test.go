package inplace

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

// example7 is the old template of update-and-ordering Example 7.
const example7 = `{
  "metadata": {"creationTimestamp": null, "labels": {"app": "x"}},
  "spec": {"containers": [
    {"name": "main", "image": "nginx:1", "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}},
    {"name": "side", "image": "busybox:1", "resources": {}, "env": [
      {"name": "A", "value": "1"},
      {"name": "LBL", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ver']"}}}]}
  ]}}`

// guaranteed is a template whose QoS class is Guaranteed.
const guaranteed = `{
  "metadata": {"labels": {"app": "x"}},
  "spec": {"containers": [
    {"name": "main", "image": "nginx:1", "resources": {
      "limits": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}, "requests": {"cpu": "1", "memory": "1Gi"}}}
  ]}}`

// summary is the comparable part of a Spec.
type summary struct {
	Feasible        bool
	Reason          string // substring expected in Spec.Reason
	Images          map[string]string
	Resources       map[string]string // container -> "limits.cpu=2 requests.cpu=2"
	MetadataChanged bool
	EnvFromMetadata bool
	RefMetadata     map[string]RefMetadata
	Metadata        MetadataPatch
}

func summarize(s Spec) summary {
	out := summary{Feasible: s.Feasible, Reason: s.Reason, Images: s.Images, MetadataChanged: s.MetadataChanged,
		EnvFromMetadata: s.EnvFromMetadata, RefMetadata: s.RefMetadata, Metadata: s.Metadata}
	if len(s.Resources) > 0 {
		out.Resources = map[string]string{}
		for c, r := range s.Resources {
			var xs []string
			for _, k := range model.SortedKeys(r.Limits) {
				xs = append(xs, "limits."+k+"="+r.Limits[k].String())
			}
			for _, k := range model.SortedKeys(r.Requests) {
				xs = append(xs, "requests."+k+"="+r.Requests[k].String())
			}
			out.Resources[c] = strings.Join(xs, " ")
		}
	}
	return out
}

func TestCalculate(t *testing.T) {
	vertical := model.DefaultFeatureGates()
	vertical.InPlaceWorkloadVerticalScaling = true
	vctGate := model.DefaultFeatureGates()
	vctGate.RecreatePodWhenChangeVCTInCloneSetGate = true
	noEnvGate := model.FeatureGates{}
	ifPossible := Options{Policy: model.PolicyInPlaceIfPossible, Gates: model.DefaultFeatureGates()}

	type tc struct {
		name           string
		base           string                 // old template (default example7)
		change         func(m map[string]any) // turns a copy of base into the new template
		oldAnn, newAnn map[string]string      // revision annotations
		opts           *Options               // default ifPossible
		want           summary
	}
	cases := []tc{
		// Example 7, row by row.
		{name: "ex7 side image only", change: func(m map[string]any) {
			get(m, "spec", "containers", 1).(map[string]any)["image"] = "busybox:2"
		}, want: summary{Feasible: true, Images: map[string]string{"side": "busybox:2"}}},
		{name: "ex7 labels ver and new added", change: func(m map[string]any) {
			l := get(m, "metadata", "labels").(map[string]any)
			l["ver"], l["new"] = "v2", "y"
		}, want: summary{Feasible: true, MetadataChanged: true, EnvFromMetadata: true,
			RefMetadata: map[string]RefMetadata{"side": {Labels: map[string]string{"ver": "v2"}}},
			Metadata:    MetadataPatch{SetLabels: map[string]string{"new": "y"}}}},
		{name: "ex7 annotations added where there were none", change: func(m map[string]any) {
			get(m, "metadata").(map[string]any)["annotations"] = map[string]any{"team": "a"}
		}, want: summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{SetAnnotations: map[string]string{"team": "a"}}}},
		{name: "ex7 env B appended to side", change: func(m map[string]any) {
			c := get(m, "spec", "containers", 1).(map[string]any)
			c["env"] = append(c["env"].([]any), map[string]any{"name": "B", "value": "2"})
		}, want: summary{Reason: "spec.containers[1].env[2] added"}},
		{name: "ex7 containers swapped", change: func(m map[string]any) {
			cs := get(m, "spec", "containers").([]any)
			cs[0], cs[1] = cs[1], cs[0]
		}, want: summary{Reason: "spec.containers[0].name changed"}},
		{name: "ex7 main cpu to 2, vertical gate off", change: func(m map[string]any) {
			r := get(m, "spec", "containers", 0, "resources").(map[string]any)
			r["limits"].(map[string]any)["cpu"], r["requests"].(map[string]any)["cpu"] = "2", "2"
		}, want: summary{Reason: "spec.containers[0].resources.limits.cpu changed (resource changes need InPlaceWorkloadVerticalScaling)"}},
		{name: "ex7 main cpu to 2, vertical gate on", opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vertical}, change: func(m map[string]any) {
			r := get(m, "spec", "containers", 0, "resources").(map[string]any)
			r["limits"].(map[string]any)["cpu"], r["requests"].(map[string]any)["cpu"] = "2", "2"
		}, want: summary{Feasible: true, Resources: map[string]string{"main": "limits.cpu=2 requests.cpu=2"}}},
		{name: "ex7 main memory limit added, gate on", opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vertical}, change: func(m map[string]any) {
			get(m, "spec", "containers", 0, "resources", "limits").(map[string]any)["memory"] = "1Gi"
		}, want: summary{Reason: "spec.containers[0].resources.limits.memory added"}},
		{name: "ex7 main image and label ver", change: func(m map[string]any) {
			get(m, "spec", "containers", 0).(map[string]any)["image"] = "nginx:2"
			get(m, "metadata", "labels").(map[string]any)["ver"] = "v3"
		}, want: summary{Feasible: true, Images: map[string]string{"main": "nginx:2"}, MetadataChanged: true, EnvFromMetadata: true,
			RefMetadata: map[string]RefMetadata{"side": {Labels: map[string]string{"ver": "v3"}}}}},

		// More pairs.
		{name: "identical templates: empty in-place update", change: func(map[string]any) {},
			want: summary{Feasible: true}},
		{name: "label only", change: func(m map[string]any) {
			get(m, "metadata", "labels").(map[string]any)["app"] = "y"
		}, want: summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{SetLabels: map[string]string{"app": "y"}}}},
		{name: "label removed", change: func(m map[string]any) {
			get(m, "metadata").(map[string]any)["labels"] = map[string]any{}
		}, want: summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{RemoveLabels: []string{"app"}}}},
		{name: "env value changed", change: func(m map[string]any) {
			get(m, "spec", "containers", 1, "env", 0).(map[string]any)["value"] = "2"
		}, want: summary{Reason: "spec.containers[1].env[0].value changed"}},
		{name: "volume added", change: func(m map[string]any) {
			get(m, "spec").(map[string]any)["volumes"] = []any{map[string]any{"name": "data"}}
		}, want: summary{Reason: "spec.volumes added"}},
		{name: "volume source changed", base: `{"metadata":{},"spec":{"containers":[{"name":"a","image":"x"}],"volumes":[{"name":"d","emptyDir":{}}]}}`,
			change: func(m map[string]any) {
				get(m, "spec", "volumes", 0).(map[string]any)["emptyDir"] = map[string]any{"medium": "Memory"}
			}, want: summary{Reason: "spec.volumes[0].emptyDir.medium added"}},
		{name: "container renamed", change: func(m map[string]any) {
			get(m, "spec", "containers", 0).(map[string]any)["name"] = "web"
		}, want: summary{Reason: "spec.containers[0].name changed"}},
		{name: "container added", change: func(m map[string]any) {
			s := get(m, "spec").(map[string]any)
			s["containers"] = append(s["containers"].([]any), map[string]any{"name": "log", "image": "fluent:1"})
		}, want: summary{Reason: "spec.containers[2] added"}},
		{name: "container removed", change: func(m map[string]any) {
			s := get(m, "spec").(map[string]any)
			s["containers"] = s["containers"].([]any)[:1]
		}, want: summary{Reason: "spec.containers[1] removed"}},
		{name: "init container image", base: `{"metadata":{},"spec":{"initContainers":[{"name":"i","image":"init:1"}],"containers":[{"name":"a","image":"x"}]}}`,
			change: func(m map[string]any) {
				get(m, "spec", "initContainers", 0).(map[string]any)["image"] = "init:2"
			}, want: summary{Reason: "spec.initContainers[0].image changed"}},
		{name: "QoS change Guaranteed to Burstable, gate on", base: guaranteed, opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vertical},
			change: func(m map[string]any) {
				get(m, "spec", "containers", 0, "resources", "limits").(map[string]any)["cpu"] = "2"
			}, want: summary{Reason: "QoS class from Guaranteed to Burstable"}},
		{name: "cpu and memory kept Guaranteed, gate on", base: guaranteed, opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vertical},
			change: func(m map[string]any) {
				r := get(m, "spec", "containers", 0, "resources").(map[string]any)
				r["limits"].(map[string]any)["memory"], r["requests"].(map[string]any)["memory"] = "2Gi", "2Gi"
			}, want: summary{Feasible: true, Resources: map[string]string{"main": "limits.memory=2Gi requests.memory=2Gi"}}},
		{name: "GPU resource, gate on", base: guaranteed, opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vertical},
			change: func(m map[string]any) {
				get(m, "spec", "containers", 0, "resources", "limits").(map[string]any)["nvidia.com/gpu"] = "2"
			}, want: summary{Reason: "resource nvidia.com/gpu cannot be resized in place"}},
		{name: "cpu as a bare number, gate on", opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vertical}, change: func(m map[string]any) {
			r := get(m, "spec", "containers", 0, "resources").(map[string]any)
			r["limits"].(map[string]any)["cpu"], r["requests"].(map[string]any)["cpu"] = json.Number("2"), 2
		}, want: summary{Feasible: true, Resources: map[string]string{"main": "limits.cpu=2 requests.cpu=2"}}},
		{name: "VCT hash changed, gate on, InPlaceIfPossible", opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vctGate},
			oldAnn: map[string]string{model.AnnotationVCTHash: "111"}, newAnn: map[string]string{model.AnnotationVCTHash: "222"},
			change: func(m map[string]any) { get(m, "spec", "containers", 0).(map[string]any)["image"] = "nginx:2" },
			want:   summary{Reason: "volume claim templates changed (RecreatePodWhenChangeVCTInCloneSetGate)"}},
		{name: "VCT first template added (empty hash), gate on", opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vctGate},
			oldAnn: map[string]string{model.AnnotationVCTHash: ""}, newAnn: map[string]string{model.AnnotationVCTHash: "222"},
			change: func(m map[string]any) { get(m, "spec", "containers", 0).(map[string]any)["image"] = "nginx:2" },
			want:   summary{Reason: "volume claim templates changed"}},
		{name: "VCT hash changed, gate off", oldAnn: map[string]string{model.AnnotationVCTHash: "111"}, newAnn: map[string]string{model.AnnotationVCTHash: "222"},
			change: func(m map[string]any) { get(m, "spec", "containers", 0).(map[string]any)["image"] = "nginx:2" },
			want:   summary{Feasible: true, Images: map[string]string{"main": "nginx:2"}}},
		{name: "VCT hash changed, gate on, InPlaceOnly skips the check", opts: &Options{Policy: model.PolicyInPlaceOnly, Gates: vctGate},
			oldAnn: map[string]string{model.AnnotationVCTHash: "111"}, newAnn: map[string]string{model.AnnotationVCTHash: "222"},
			change: func(m map[string]any) { get(m, "spec", "containers", 0).(map[string]any)["image"] = "nginx:2" },
			want:   summary{Feasible: true, Images: map[string]string{"main": "nginx:2"}}},
		{name: "VCT annotation missing on one side, gate on", opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: vctGate},
			newAnn: map[string]string{model.AnnotationVCTHash: "222"},
			change: func(m map[string]any) { get(m, "spec", "containers", 0).(map[string]any)["image"] = "nginx:2" },
			want:   summary{Feasible: true, Images: map[string]string{"main": "nginx:2"}}},
		{name: "metadata missing entirely in the new template: read as empty metadata", change: func(m map[string]any) { delete(m, "metadata") },
			want: summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{RemoveLabels: []string{"app"}}}},
		{name: "metadata missing entirely in the old template: read as empty metadata", base: `{"spec":{"containers":[{"name":"a","image":"x"}]}}`,
			change: func(m map[string]any) { m["metadata"] = map[string]any{"labels": map[string]any{"a": "b"}} },
			want:   summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{SetLabels: map[string]string{"a": "b"}}}},
		{name: "metadata missing entirely in an unreadable template (compared as written)", base: `{"metadata":{},"spec":{"containers":[{"name":"a","image":"x","ports":[{"containerPort":"80"}]}]}}`,
			change: func(m map[string]any) { delete(m, "metadata") },
			want:   summary{Reason: "template metadata missing in target revision web-2"}},
		{name: "metadata missing entirely in the old, unreadable template", base: `{"spec":{"containers":[{"name":"a","image":"x","ports":[{"containerPort":"80"}]}]}}`,
			change: func(m map[string]any) { m["metadata"] = map[string]any{"labels": map[string]any{"a": "b"}} },
			want:   summary{Reason: "template metadata missing in old revision web-1"}},
		{name: "what the API types write anyway, unknown members and a quantity's spelling are no difference",
			base: `{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"a","image":"x","resources":{"limits":{"cpu":"1000m"}}}]}}`,
			change: func(m map[string]any) {
				m["metadata"].(map[string]any)["creationTimestamp"] = nil
				c := get(m, "spec", "containers", 0).(map[string]any)
				c["resources"].(map[string]any)["limits"] = map[string]any{"cpu": "1"}
				c["terminationMessagePath"], c["x-unknown"] = "", true
			}, want: summary{Feasible: true}},
		{name: "env-from-metadata gate off: referenced label stays in the plain patch", opts: &Options{Policy: model.PolicyInPlaceIfPossible, Gates: noEnvGate},
			change: func(m map[string]any) { get(m, "metadata", "labels").(map[string]any)["ver"] = "v2" },
			want:   summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{SetLabels: map[string]string{"ver": "v2"}}}},
		{name: "annotation referenced by env", base: `{"metadata":{"annotations":{"cfg":"1"}},"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"C","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['cfg']"}}}]}]}}`,
			change: func(m map[string]any) { get(m, "metadata", "annotations").(map[string]any)["cfg"] = "2" },
			want: summary{Feasible: true, MetadataChanged: true, EnvFromMetadata: true,
				RefMetadata: map[string]RefMetadata{"a": {Annotations: map[string]string{"cfg": "2"}}}}},
		{name: "label map added as a whole is not inspected key by key", base: `{"metadata":{},"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"V","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['ver']"}}}]}]}}`,
			change: func(m map[string]any) { m["metadata"].(map[string]any)["labels"] = map[string]any{"ver": "v2"} },
			want:   summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{SetLabels: map[string]string{"ver": "v2"}}}},
		{name: "SIDECARSET_VERSION env is not a reference", base: `{"metadata":{"labels":{}},"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"SIDECARSET_VERSION","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['v']"}}}]}]}}`,
			change: func(m map[string]any) { get(m, "metadata", "labels").(map[string]any)["v"] = "2" },
			want:   summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{SetLabels: map[string]string{"v": "2"}}}},
		{name: "removed referenced label stays in the plain patch", change: func(m map[string]any) {
			get(m, "metadata").(map[string]any)["labels"] = map[string]any{"app": "x"}
		}, base: strings.Replace(example7, `"labels": {"app": "x"}`, `"labels": {"app": "x", "ver": "v1"}`, 1),
			want: summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{RemoveLabels: []string{"ver"}}}},
		{name: "finalizers in template metadata", change: func(m map[string]any) {
			m["metadata"].(map[string]any)["finalizers"] = []any{"x/y"}
		}, want: summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{Other: []string{"finalizers"}}}},
		{name: "numbers compare by value", base: `{"metadata":{},"spec":{"activeDeadlineSeconds":30,"containers":[{"name":"a","image":"x"}]}}`,
			change: func(m map[string]any) { m["spec"].(map[string]any)["activeDeadlineSeconds"] = 30.0 },
			want:   summary{Feasible: true}},
		{name: "image set to a number", change: func(m map[string]any) {
			get(m, "spec", "containers", 0).(map[string]any)["image"] = 5
		}, want: summary{Reason: "spec.containers[0].image changed to a value that is not a string"}},
		{name: "null member equals null member, differs from a value", change: func(m map[string]any) {
			m["metadata"].(map[string]any)["creationTimestamp"] = "2026-01-01T00:00:00Z"
		}, want: summary{Feasible: true, MetadataChanged: true, Metadata: MetadataPatch{Other: []string{"creationTimestamp"}}}},
		{name: "spec member outside containers", change: func(m map[string]any) {
			m["spec"].(map[string]any)["nodeSelector"] = map[string]any{"zone": "a"}
		}, want: summary{Reason: "spec.nodeSelector added"}},
		{name: "several differences: the count is reported", change: func(m map[string]any) {
			m["spec"].(map[string]any)["hostNetwork"] = true
			m["spec"].(map[string]any)["dnsPolicy"] = "None"
		}, want: summary{Reason: "spec.dnsPolicy added (and 1 more differences)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := c.base
			if base == "" {
				base = example7
			}
			oldT := tree(t, base)
			newT := deepCopy(oldT).(map[string]any)
			c.change(newT)
			opts := ifPossible
			if c.opts != nil {
				opts = *c.opts
			}
			got := summarize(Calculate(rev("web-1", 1, oldT, c.oldAnn), rev("web-2", 2, newT, c.newAnn), opts))
			if !strings.Contains(got.Reason, c.want.Reason) || (c.want.Reason == "") != (got.Reason == "") {
				t.Errorf("reason = %q, want it to contain %q", got.Reason, c.want.Reason)
			}
			got.Reason, c.want.Reason = "", ""
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Calculate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalculateMissingRevisions(t *testing.T) {
	r := rev("web-1", 1, tree(t, example7), nil)
	if s := Calculate(nil, r, Options{}); s.Feasible || s.Reason != "old revision not found" {
		t.Errorf("nil old: %+v", s)
	}
	if s := Calculate(r, nil, Options{}); s.Feasible || s.Reason != "target revision not found" {
		t.Errorf("nil target: %+v", s)
	}
}

func TestCalculateTypedTemplates(t *testing.T) {
	typed := func(name, image string) *model.Revision {
		return &model.Revision{Name: name, HasTemplate: true, Template: model.PodTemplate{
			Labels: map[string]string{"app": "x"},
			Spec: model.PodSpec{Containers: []model.Container{{Name: "main", Image: image,
				Resources: model.ResourceRequirements{Limits: map[string]model.Quantity{"cpu": q("1")}}}}},
		}}
	}
	s := Calculate(typed("web-1", "nginx:1"), typed("web-2", "nginx:2"), Options{})
	if !s.Feasible || s.Images["main"] != "nginx:2" || s.Revision != "web-2" {
		t.Errorf("typed image change: %+v", s)
	}
	envChanged := typed("web-2", "nginx:1")
	envChanged.Template.Spec.Containers[0].Env = []model.EnvVar{{Name: "A", Value: "1", HasValue: true}}
	if s := Calculate(typed("web-1", "nginx:1"), envChanged, Options{}); s.Feasible || s.Reason != "spec.containers[0].env added" {
		t.Errorf("typed env change: %+v", s)
	}
	// A "$patch" left on one side is not a difference.
	a := tree(t, example7)
	b := deepCopy(a).(map[string]any)
	b["$patch"] = "replace"
	if s := Calculate(rev("a", 1, a, nil), rev("b", 2, b, nil), Options{}); !s.Feasible {
		t.Errorf("$patch: %+v", s)
	}
}

func TestSpecSummary(t *testing.T) {
	oldT := tree(t, example7)
	newT := deepCopy(oldT).(map[string]any)
	get(newT, "spec", "containers", 0).(map[string]any)["image"] = "nginx:2"
	l := get(newT, "metadata", "labels").(map[string]any)
	l["ver"], l["new"] = "v2", "y"
	s := Calculate(rev("web-1", 1, oldT, nil), rev("web-2", 2, newT, nil), Options{Gates: model.DefaultFeatureGates()})
	want := "images main=nginx:2; env from metadata side label ver=v2; metadata label +new=y"
	if got := s.Summary(); got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	if got := (Spec{Reason: "x"}).Summary(); got != "not possible in place: x" {
		t.Errorf("infeasible Summary() = %q", got)
	}
}

func TestQoSClass(t *testing.T) {
	res := func(lim, req map[string]string) model.ResourceRequirements {
		r := model.ResourceRequirements{}
		for k, v := range lim {
			if r.Limits == nil {
				r.Limits = map[string]model.Quantity{}
			}
			r.Limits[k] = q(v)
		}
		for k, v := range req {
			if r.Requests == nil {
				r.Requests = map[string]model.Quantity{}
			}
			r.Requests[k] = q(v)
		}
		return r
	}
	full := res(map[string]string{"cpu": "1", "memory": "1Gi"}, map[string]string{"cpu": "1", "memory": "1Gi"})
	cases := []struct {
		name string
		spec model.PodSpec
		want string
	}{
		{"no resources", model.PodSpec{Containers: []model.Container{{Name: "a"}}}, QoSBestEffort},
		{"only zero values", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: res(map[string]string{"cpu": "0"}, map[string]string{"memory": "0"})}}}, QoSBestEffort},
		{"only other resources", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: res(map[string]string{"nvidia.com/gpu": "1"}, nil)}}}, QoSBestEffort},
		{"requests only", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: res(nil, map[string]string{"cpu": "1"})}}}, QoSBurstable},
		{"equal cpu and memory", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: full}}}, QoSGuaranteed},
		{"equal values written differently", model.PodSpec{Containers: []model.Container{{Name: "a",
			Resources: res(map[string]string{"cpu": "1", "memory": "1Gi"}, map[string]string{"cpu": "1000m", "memory": "1073741824"})}}}, QoSGuaranteed},
		{"limits without requests", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: res(map[string]string{"cpu": "1", "memory": "1Gi"}, nil)}}}, QoSBurstable},
		{"request below limit", model.PodSpec{Containers: []model.Container{{Name: "a",
			Resources: res(map[string]string{"cpu": "2", "memory": "1Gi"}, map[string]string{"cpu": "1", "memory": "1Gi"})}}}, QoSBurstable},
		{"one container without limits", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: full}, {Name: "b"}}}, QoSBurstable},
		{"init container without limits", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: full}}, InitContainers: []model.Container{{Name: "i"}}}, QoSBurstable},
		{"cpu limit only on every container", model.PodSpec{Containers: []model.Container{{Name: "a", Resources: res(map[string]string{"cpu": "1"}, map[string]string{"cpu": "1"})}}}, QoSBurstable},
		{"sums over containers", model.PodSpec{Containers: []model.Container{
			{Name: "a", Resources: res(map[string]string{"cpu": "1", "memory": "1Gi"}, map[string]string{"cpu": "2", "memory": "1Gi"})},
			{Name: "b", Resources: res(map[string]string{"cpu": "2", "memory": "1Gi"}, map[string]string{"cpu": "1", "memory": "1Gi"})}}}, QoSGuaranteed},
	}
	for _, c := range cases {
		if got := QoSClass(c.spec); got != c.want {
			t.Errorf("%s: QoSClass = %s, want %s", c.name, got, c.want)
		}
	}
}
