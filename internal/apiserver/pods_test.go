package apiserver

import (
	"strings"
	"testing"
)

const podWorld = `---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, uid: uid-web, labels: {app: web}}
spec:
  activeDeadlineSeconds: 600
  terminationGracePeriodSeconds: -1
  tolerations: [{key: a, operator: Exists}]
  schedulingGates: [{name: g1}, {name: g2}]
  initContainers: [{name: init, image: busybox:1}]
  containers:
  - name: main
    image: nginx:1
    resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]
    resources: {requests: {cpu: 250m, memory: 256Mi, ephemeral-storage: 1Gi}, limits: {cpu: "1", memory: 512Mi}}
  - name: side
    image: envoy:1
status: {phase: Running}
`

// TestPodUpdateRule: a pod patch may change only what the API server's pod
// update validation lets an update change; anything else, container
// resources first of all, is Invalid with the server's message and leaves
// the pod as it was.
func TestPodUpdateRule(t *testing.T) {
	const smp = StrategicMergePatchType
	for _, c := range []struct {
		name, patchType, body string
		ok                    bool
	}{
		{"labels and annotations", MergePatchType, `{"metadata":{"labels":{"x":"y"},"annotations":{"a":"b"}}}`, true},
		{"an image", smp, `{"spec":{"containers":[{"name":"main","image":"nginx:2"}]}}`, true},
		{"an init container image", smp, `{"spec":{"initContainers":[{"name":"init","image":"busybox:2"}]}}`, true},
		{"activeDeadlineSeconds lowered", MergePatchType, `{"spec":{"activeDeadlineSeconds":60}}`, true},
		{"activeDeadlineSeconds raised", MergePatchType, `{"spec":{"activeDeadlineSeconds":6000}}`, false},
		{"activeDeadlineSeconds removed", MergePatchType, `{"spec":{"activeDeadlineSeconds":null}}`, false},
		{"a toleration added", MergePatchType, `{"spec":{"tolerations":[{"key":"a","operator":"Exists"},{"key":"b","operator":"Exists"}]}}`, true},
		{"a toleration removed", MergePatchType, `{"spec":{"tolerations":[]}}`, false},
		{"terminationGracePeriodSeconds -1 to 1", MergePatchType, `{"spec":{"terminationGracePeriodSeconds":1}}`, true},
		{"terminationGracePeriodSeconds -1 to 30", MergePatchType, `{"spec":{"terminationGracePeriodSeconds":30}}`, false},
		{"a scheduling gate removed", MergePatchType, `{"spec":{"schedulingGates":[{"name":"g2"}]}}`, true},
		{"a scheduling gate added", MergePatchType, `{"spec":{"schedulingGates":[{"name":"g1"},{"name":"g2"},{"name":"g3"}]}}`, false},
		{"container resources", smp, `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"500m"}}}]}}`, false},
		{"the same resources", smp, `{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"250m"}}}]}}`, true},
		{"an image and resources", smp, `{"spec":{"containers":[{"name":"main","image":"nginx:2","resources":{"limits":{"memory":"1Gi"}}}]}}`, false},
		{"a container added", smp, `{"spec":{"containers":[{"name":"extra","image":"x:1"}]}}`, false},
		{"the node name", MergePatchType, `{"spec":{"nodeName":"n9"}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load([]byte(podWorld))
			if err != nil {
				t.Fatal(err)
			}
			before, _ := s.Get("pods", "default", "web")
			_, err = s.Patch("pods", "default", "web", "", c.patchType, []byte(c.body), &Preconditions{UID: "uid-web"})
			if c.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !c.ok {
				if ReasonOf(err) != ReasonInvalid || !strings.Contains(err.Error(), `Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than`) {
					t.Fatalf("err = %v, want the API server's Forbidden", err)
				}
				if after, _ := s.Get("pods", "default", "web"); !Equal(before, after) {
					t.Error("a refused patch changed the pod")
				}
			}
		})
	}
}

// TestPodResize: pods/resize changes the containers' resources and resize
// policies and nothing else (other changes are dropped, as the real
// subresource drops them); the containers cannot change, only cpu and
// memory can; only pods have it.
func TestPodResize(t *testing.T) {
	const smp = StrategicMergePatchType
	resize := func(t *testing.T, resource, patchType, body string) (Object, *Store, error) {
		t.Helper()
		s, err := Load([]byte(podWorld))
		if err != nil {
			t.Fatal(err)
		}
		o, err := s.Patch(resource, "default", "web", "resize", patchType, []byte(body), &Preconditions{UID: "uid-web"})
		return o, s, err
	}
	t.Run("cpu and memory", func(t *testing.T) {
		o, s, err := resize(t, "pods", smp, `{"metadata":{"labels":{"x":"y"}},"spec":{"nodeName":"n9","containers":[{"name":"main","image":"nginx:9","resources":{"requests":{"cpu":"500m"},"limits":{"memory":"1Gi"}}}]}}`)
		if err != nil {
			t.Fatal(err)
		}
		main := o["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		want := map[string]any{"requests": map[string]any{"cpu": "500m", "memory": "256Mi", "ephemeral-storage": "1Gi"}, "limits": map[string]any{"cpu": "1", "memory": "1Gi"}}
		if !Equal(main["resources"], want) {
			t.Errorf("resources %s, want %s", compactJSON(main["resources"]), compactJSON(want))
		}
		if main["image"] != "nginx:1" || metadata(o)["labels"].(map[string]any)["x"] != nil || o["spec"].(map[string]any)["nodeName"] != nil {
			t.Errorf("a change other than resources was kept: %s", compactJSON(o))
		}
		if ops := s.Journal(); len(ops) != 1 || ops[0].Verb != VerbPatch {
			t.Errorf("journal %v", ops)
		}
	})
	for _, c := range []struct {
		name, resource, patchType, body string
		reason                          Reason
		message                         string
	}{
		{"another resource", "", smp, `{"spec":{"containers":[{"name":"main","resources":{"requests":{"ephemeral-storage":"2Gi"}}}]}}`, ReasonInvalid, "only cpu and memory resources are mutable"},
		{"a container added", "", smp, `{"spec":{"containers":[{"name":"extra","image":"x:1"}]}}`, ReasonInvalid, "containers may not be added or removed"},
		{"containers replaced", "", MergePatchType, `{"spec":{"containers":[{"name":"side","image":"envoy:1"},{"name":"main","image":"nginx:1"}]}}`, ReasonInvalid, "renamed or reordered"},
		{"a claim", "persistentvolumeclaims", smp, `{"spec":{}}`, ReasonNotFound, "no resize subresource"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resource := "pods"
			if c.resource == "persistentvolumeclaims" {
				resource = c.resource
			}
			_, _, err := resize(t, resource, c.patchType, c.body)
			if ReasonOf(err) != c.reason || !strings.Contains(err.Error(), c.message) {
				t.Errorf("err = %v, want %s with %q", err, c.reason, c.message)
			}
		})
	}
	t.Run("stale uid", func(t *testing.T) {
		s, err := Load([]byte(podWorld))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Patch("pods", "default", "web", "resize", smp, []byte(`{"spec":{"containers":[{"name":"main","resources":{"requests":{"cpu":"1"}}}]}}`), &Preconditions{UID: "uid-old"}); !IsConflict(err) {
			t.Errorf("err = %v, want a conflict", err)
		}
	})
}
