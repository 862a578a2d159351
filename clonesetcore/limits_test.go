package clonesetcore_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// hugeCloneSet is a CloneSet of the issue: spec.replicas 2^31-1 and no pods.
func hugeCloneSet(api, extra string) string {
	return "apiVersion: apps.kruise.io/" + api + `
kind: CloneSet
metadata: {name: big, namespace: default, uid: uid-big}
spec:
  replicas: 2147483647
  selector: {matchLabels: {app: big}}
  template:
    metadata: {labels: {app: big}}
    spec: {containers: [{name: c, image: nginx}]}
` + extra
}

const vctYAML = `  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`

// TestPlanHugeReplicas: the inputs of issue 19 answer at once with a
// LimitError naming the field and the limit, in little memory, and a scale
// limit makes the same CloneSet plan normally.
func TestPlanHugeReplicas(t *testing.T) {
	cases := []struct {
		name, doc string
		limits    clonesetcore.Limits
		field     string // "" = a plan is expected
		creates   int
	}{
		{"v1alpha1", hugeCloneSet("v1alpha1", ""), clonesetcore.Limits{}, "spec.replicas", 0},
		{"v1alpha1 with volume claim templates", hugeCloneSet("v1alpha1", vctYAML), clonesetcore.Limits{}, "spec.replicas", 0},
		{"v1beta1 scale limit 100%", hugeCloneSet("v1beta1", "  scaleStrategy: {maxUnavailable: \"100%\"}\n"), clonesetcore.Limits{}, "spec.replicas", 0},
		{"v1beta1 scale limit 100 pods", hugeCloneSet("v1beta1", "  scaleStrategy: {maxUnavailable: 100}\n"+vctYAML), clonesetcore.Limits{}, "", 100},
		{"scale limit at the limit", hugeCloneSet("v1beta1", "  scaleStrategy: {maxUnavailable: 50}\n"), clonesetcore.Limits{MaxCreatePods: 50}, "", 50},
		{"scale limit above the limit", hugeCloneSet("v1beta1", "  scaleStrategy: {maxUnavailable: 51}\n"), clonesetcore.Limits{MaxCreatePods: 50}, "spec.replicas", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scn, err := manifest.LoadBytes([]byte(c.doc), "huge.yaml")
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			res, err := clonesetcore.PlanWithOptions(scn, clonesetcore.Options{Limits: c.limits})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("allocated %d MB", alloc>>20)
			}
			if elapsed > 5*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if c.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, a := range res.Actions {
					if a.Type == model.ActionCreatePod {
						n++
					}
				}
				if n != c.creates {
					t.Fatalf("%d creations, want %d", n, c.creates)
				}
				return
			}
			var le *clonesetcore.LimitError
			if !errors.As(err, &le) || res != nil {
				t.Fatalf("got %v, %v; want a *LimitError", res, err)
			}
			want := clonesetcore.DefaultMaxCreatePods
			if c.limits.MaxCreatePods != 0 {
				want = c.limits.MaxCreatePods
			}
			if le.Field != c.field || le.Limit != want || le.CloneSet != "default/big" {
				t.Fatalf("error %+v", le)
			}
			for _, part := range []string{"default/big", c.field, "2147483647", "clonesetcore.Limits.MaxCreatePods"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("message %q lacks %q", err, part)
				}
			}
		})
	}
}

// TestPlanLimitBoundary: exactly MaxCreatePods creations plan, one more is
// refused, and the error names maxSurge when the surge pods push the count
// over; a negative limit is an error, Plan is PlanWithOptions with the
// defaults.
func TestPlanLimitBoundary(t *testing.T) {
	pods := []*model.Pod{pod("web-a", revA), pod("web-b", revA), pod("web-c", revA), pod("web-d", revA)}
	w := newWorld(4, pods...).atRest(revA).target(revB).maxSurge(3).maxUnavail(0)
	limited := func(n int) (*clonesetcore.Result, error) {
		return clonesetcore.PlanWithOptions(w.s, clonesetcore.Options{Limits: clonesetcore.Limits{MaxCreatePods: n}})
	}
	base := mustPlan(t, w.s)
	creates := 0
	for _, a := range base.Actions {
		if a.Type == model.ActionCreatePod {
			creates++
		}
	}
	if creates != 3 {
		t.Fatalf("the world creates %d surge pods, want 3:\n%s", creates, planJSON(t, base))
	}
	if res, err := limited(3); err != nil || planJSON(t, res) != planJSON(t, base) {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := limited(2)
	var le *clonesetcore.LimitError
	if !errors.As(err, &le) || le.Field != "spec.updateStrategy.rollingUpdate.maxSurge" || le.Wanted != 3 || le.Limit != 2 || le.Existing != 4 {
		t.Fatalf("above the limit: %v (%+v)", err, le)
	}
	if _, err := limited(-1); err == nil || !strings.Contains(err.Error(), "MaxCreatePods") {
		t.Fatalf("negative limit: %v", err)
	}
}
