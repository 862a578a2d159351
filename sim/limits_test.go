package sim

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/manifest"
	"github.com/clonecore/cloneset/model"
)

// TestSimRefusesHugeReplicas: a run above Config.MaxPods is refused by New,
// naming the field and the limit, whether the replicas come from the
// CloneSet or from a scripted change; at the limit the run goes on, and
// the planner of the run uses the same limit.
func TestSimRefusesHugeReplicas(t *testing.T) {
	scn, cfg := genWorld(func(string, int, int) int { return 0 }, false)
	huge := int32(math.MaxInt32)
	cases := []struct {
		name     string
		replicas int32
		event    *int32
		maxPods  int
		want     string // "" = accepted
	}{
		{"replicas 2^31-1", huge, nil, 0, "spec.replicas 2147483647"},
		{"scripted replicas 2^31-1", 3, &huge, 0, "sets spec.replicas 2147483647"},
		{"at a custom limit", 10, nil, 10, ""},
		{"above a custom limit", 11, nil, 10, "spec.replicas 11"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := scn.DeepCopy()
			s.CloneSet.Spec.Replicas = &c.replicas
			cf := cfg
			cf.MaxPods = c.maxPods
			cf.Events = nil
			if c.event != nil {
				cf.Events = []Event{{At: time.Second, Change: Change{Replicas: c.event}}}
			}
			_, err := New(s, cf)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "MaxPods") {
				t.Fatalf("got %v, want an error with %q and MaxPods", err, c.want)
			}
		})
	}
	// The run's planner refuses more creations than MaxPods.
	s := scn.DeepCopy()
	r := int32(5)
	s.CloneSet.Spec.Replicas = &r
	_, err := cfg.planner()(s)
	if err != nil {
		t.Fatal(err)
	}
	small := cfg
	small.MaxPods = 4
	var le *clonesetcore.LimitError
	if _, err := small.planner()(s); !errors.As(err, &le) || le.Limit != 4 {
		t.Fatalf("planner with MaxPods 4: %v", err)
	}
}

// TestConvergenceBoundSaturates: seconds at the int32 maximum and delays of
// a billion seconds give the largest bound, never a negative one (which
// would report every such run as not converging).
func TestConvergenceBoundSaturates(t *testing.T) {
	scn, cfg := genWorld(func(string, int, int) int { return 0 }, false)
	cs := scn.CloneSet
	cs.Spec.MinReadySeconds = math.MaxInt32
	cs.Spec.UpdateStrategy.Type = model.UpdateStrategyRollingUpdate
	ru := &model.RollingUpdateStrategy{PodUpdatePolicy: model.PolicyInPlaceIfPossible,
		InPlaceUpdateStrategy: &model.InPlaceUpdateStrategy{GracePeriodSeconds: math.MaxInt32}}
	surge := model.FromString("9223372036854775807%")
	ru.MaxSurge = &surge
	cs.Spec.UpdateStrategy.RollingUpdate = ru
	r := int32(100000)
	cs.Spec.Replicas = &r
	long := Seconds(1e9-1, 1e9-1)
	cfg.Delays = Delays{Schedule: long, Start: long, Ready: long, InPlace: long, Terminate: long, Hook: long, Reconcile: long.Max}
	b := convergenceBound(scn, cfg)
	if b.span != math.MaxInt64 || b.steps <= 0 {
		t.Fatalf("bound %+v, want the largest span", b)
	}
	neg := int32(-5)
	cs.Spec.Replicas = &neg
	cs.Spec.MinReadySeconds = 0
	cfg = DefaultConfig()
	if b := convergenceBound(scn, cfg); b.span <= 0 || b.steps < 100 {
		t.Fatalf("bound %+v for negative replicas", b)
	}
}

// TestSimRefusesHugeRuns: FromManifest refuses a node count above the
// cluster's without building the names, and New refuses more steps or nodes
// than a Simulation document may ask for.
func TestSimRefusesHugeRuns(t *testing.T) {
	if _, err := FromManifest(&manifest.Simulation{NodeCount: math.MaxInt32}); err == nil || !strings.Contains(err.Error(), "MaxSimulationNodes") {
		t.Fatalf("FromManifest: %v", err)
	}
	scn, cfg := genWorld(func(string, int, int) int { return 0 }, false)
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"steps at the limit", func(c *Config) { c.MaxSteps = manifest.MaxSimulationSteps }, ""},
		{"steps above", func(c *Config) { c.MaxSteps = manifest.MaxSimulationSteps + 1 }, "MaxSteps"},
		{"nodes above", func(c *Config) { c.Nodes = make([]string, manifest.MaxSimulationNodes+1) }, "Nodes"},
	} {
		cf := cfg
		c.edit(&cf)
		_, err := New(scn.DeepCopy(), cf)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
