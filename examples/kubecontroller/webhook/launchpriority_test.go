package webhook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestMutatePodLaunchPriority: OpenKruise's container launch priority
// injection, one case per rule: the barrier env of each container (or
// none), the pod's name, the refusals.
func TestMutatePodLaunchPriority(t *testing.T) {
	const owned = `"ownerReferences":[{"apiVersion":"apps.kruise.io/v1beta1","kind":"CloneSet","name":"web","uid":"u","controller":true}]`
	prio := func(v string) string { return `{"name":"KRUISE_CONTAINER_PRIORITY","value":"` + v + `"}` }
	container := func(name string, env ...string) string {
		return `{"name":"` + name + `","image":"` + name + `","env":[` + strings.Join(env, ",") + `]}`
	}
	pod := func(meta string, containers ...string) string {
		return `{"metadata":{` + meta + `},"spec":{"containers":[` + strings.Join(containers, ",") + `]}}`
	}
	for _, tc := range []struct {
		name string
		pod  string
		// want is each container's barrier key ("" for none), nil when the
		// pod is left as it is.
		want     []string
		wantName string
		wantGate bool
		wantErr  string
	}{
		{name: "e2e: redis priority 10, nginx none", pod: pod(`"name":"web-a"`, container("nginx"), container("redis", prio("10"))),
			want: []string{"p_0", "p_10"}, wantName: "web-a"},
		{name: "with the readiness gate of a CloneSet's pod", pod: pod(`"name":"web-a",`+owned, container("nginx"), container("redis", prio("10"))),
			want: []string{"p_0", "p_10"}, wantName: "web-a", wantGate: true},
		{name: "negative and positive", pod: pod(`"name":"p"`, container("a", prio("-5")), container("b", prio("3")), container("c")),
			want: []string{"p_-5", "p_3", "p_0"}, wantName: "p"},
		{name: "the last env of a container counts", pod: pod(`"name":"p"`, container("a", prio("1"), prio("7")), container("b")),
			want: []string{"p_7", "p_0"}, wantName: "p"},
		{name: "Ordered", pod: pod(`"name":"p","annotations":{"apps.kruise.io/container-launch-priority":"Ordered"}`, container("a"), container("b"), container("c")),
			want: []string{"p_0", "p_-1", "p_-2"}, wantName: "p"},
		{name: "Ordered wins over the env", pod: pod(`"name":"p","annotations":{"apps.kruise.io/container-launch-priority":"Ordered"}`, container("a", prio("x")), container("b", prio("9"))),
			want: []string{"p_0", "p_-1"}, wantName: "p"},
		{name: "a name from generateName", pod: pod(`"generateName":"job-"`, container("a", prio("2")), container("b")),
			want: []string{"p_2", "p_0"}, wantName: "job-"},
		{name: "one container", pod: pod(`"name":"p"`, container("a", prio("10")))},
		{name: "Ordered, one container", pod: pod(`"name":"p","annotations":{"apps.kruise.io/container-launch-priority":"Ordered"}`, container("a"))},
		{name: "another annotation value", pod: pod(`"name":"p","annotations":{"apps.kruise.io/container-launch-priority":"ordered"}`, container("a"), container("b"))},
		{name: "all equal", pod: pod(`"name":"p"`, container("a", prio("4")), container("b", prio("4")))},
		{name: "all zero", pod: pod(`"name":"p"`, container("a", prio("0")), container("b"))},
		{name: "barriers already there", pod: pod(`"name":"p"`, container("a", prio("4"), `{"name":"KRUISE_CONTAINER_BARRIER","valueFrom":{"configMapKeyRef":{"name":"p-barrier","key":"p_4"}}}`), container("b"))},
		{name: "not an integer", pod: pod(`"name":"p"`, container("a"), container("b", prio("high"))),
			wantErr: `spec.containers[1].env[0] (container b): KRUISE_CONTAINER_PRIORITY must be an integer (the container's launch priority), got "high"`},
		{name: "from a field", pod: pod(`"name":"p"`, container("a"), container("b", `{"name":"KRUISE_CONTAINER_PRIORITY","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}`)),
			wantErr: `KRUISE_CONTAINER_PRIORITY must be an integer`},
		{name: "neither name nor generateName", pod: pod(``, container("a", prio("1")), container("b")),
			wantErr: `neither metadata.name nor metadata.generateName`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := MutatePod(context.Background(), podRequest(admissionv1.Create, tc.pod))
			if tc.wantErr != "" {
				if resp.Allowed || !strings.Contains(resp.Result.Message, tc.wantErr) || resp.Result.Code != 400 {
					t.Fatalf("answer %+v, want a 400 refusal with %q", resp.Result, tc.wantErr)
				}
				return
			}
			if !resp.Allowed {
				t.Fatalf("refused: %+v", resp.Result)
			}
			out, changed, err := mutatePod([]byte(tc.pod))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if changed || len(resp.Patches) != 0 {
					t.Errorf("changed: %s (patches %+v)", out, resp.Patches)
				}
				return
			}
			var got corev1.Pod
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got.Name, tc.wantName) || (tc.wantName != got.Name && len(got.Name) != len(tc.wantName)+5) {
				t.Errorf("pod name %q, want %q (or a generated name of that prefix)", got.Name, tc.wantName)
			}
			for i, c := range got.Spec.Containers {
				var keys []string
				for _, e := range c.Env {
					if e.Name != "KRUISE_CONTAINER_BARRIER" {
						continue
					}
					if e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil || e.ValueFrom.ConfigMapKeyRef.Name != got.Name+"-barrier" {
						t.Errorf("container %s: barrier %+v, want a configMapKeyRef to %s-barrier", c.Name, e, got.Name)
						continue
					}
					keys = append(keys, e.ValueFrom.ConfigMapKeyRef.Key)
				}
				if len(keys) != 1 || keys[0] != tc.want[i] {
					t.Errorf("container %s: barrier keys %v, want [%s]", c.Name, keys, tc.want[i])
				}
			}
			if gated := len(got.Spec.ReadinessGates) == 1 && got.Spec.ReadinessGates[0].ConditionType == KruisePodReady; gated != tc.wantGate {
				t.Errorf("readiness gates %+v, want the KruisePodReady gate: %v", got.Spec.ReadinessGates, tc.wantGate)
			}
		})
	}
}

// TestGenerateNameAsTheAPIServer: a prefix of at most 58 characters is kept
// whole, a longer one cut to 58, and 5 characters of the API server's
// alphabet follow (a name of at most 63).
func TestGenerateNameAsTheAPIServer(t *testing.T) {
	long := strings.Repeat("a", 70)
	for _, prefix := range []string{"web-", strings.Repeat("b", 58), long} {
		name := generateName(prefix)
		want := prefix
		if len(want) > 58 {
			want = want[:58]
		}
		if !strings.HasPrefix(name, want) || len(name) != len(want)+5 {
			t.Errorf("generateName(%q) = %q: want %q and 5 characters", prefix, name, want)
			continue
		}
		for _, r := range name[len(want):] {
			if !strings.ContainsRune("bcdfghjklmnpqrstvwxz2456789", r) {
				t.Errorf("generateName(%q) = %q: %q is not of the API server's alphabet", prefix, name, r)
			}
		}
	}
}
