package sim

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// wideMaxPods is the Config.MaxPods of FuzzSimWide: small, so that runs stay
// fast and both sides of the limit are reached.
const wideMaxPods = 60

// wideInt32 draws from the whole int32 range: small values, the boundaries
// and any 32-bit pattern.
func wideInt32(d draw, label string) int32 {
	switch d(label+".class", 0, 2) {
	case 0:
		return int32(d(label+".small", 0, 12))
	case 1:
		b := []int32{math.MaxInt32, math.MinInt32, -1, 0, wideMaxPods, wideMaxPods + 1, DefaultMaxPods, DefaultMaxPods + 1}
		return b[d(label+".edge", 0, len(b)-1)]
	default:
		return int32(d(label+".any", math.MinInt32, math.MaxInt32))
	}
}

// wideIntOrPercent draws an integer of int32 or a percentage of any int64.
func wideIntOrPercent(d draw, label string) *model.IntOrPercent {
	var v model.IntOrPercent
	switch d(label+".kind", 0, 3) {
	case 0:
		return nil
	case 1:
		v = model.FromInt(wideInt32(d, label))
	case 2:
		v = model.FromString(fmt.Sprintf("%d%%", d(label+".pct", math.MinInt64, math.MaxInt64)))
	default:
		odd := []string{"100%", "0%", "1e308%", "NaN%", "9223372036854775807%", "2147483647%", "12.5%"}
		v = model.FromString(odd[d(label+".odd", 0, len(odd)-1)])
	}
	return &v
}

// FuzzSimWide drives the simulator with the worlds of genRun whose numbers
// are then drawn from their whole range: spec.replicas and the replicas of
// scripted changes, partition, maxSurge, maxUnavailable and the scale limit
// (integers of int32, percentages of int64), minReadySeconds,
// progressDeadlineSeconds and the grace period (int32 seconds), and delays up
// to a billion seconds. A run must end without a panic, in bounded memory
// and time, with a result or one of the two size refusals (New above
// Config.MaxPods, a *clonesetcore.LimitError from a round); the invariants
// are checked on the runs of CloneSets the webhook admits and whose numbers
// stay within int32 (the arithmetic of the others is the controller's, wraps
// included, and is only required not to crash).
//
// Run it with: go test -run='^$' -fuzz='^FuzzSimWide$' -fuzztime=10m -parallel=1 ./sim/
func FuzzSimWide(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x03\x01\x01\x01\x00\x01\x01\x01\x00\x01\x02\x02\x01\x05\x02\x01\x03\x02\xff\xff\xff\x7f"))
	f.Add([]byte("wide numbers for the simulator: replicas, surges, seconds and delays from their whole range"))
	f.Fuzz(func(t *testing.T, data []byte) {
		watchdog := time.AfterFunc(60*time.Second, func() { panic("FuzzSimWide: one execution ran for 60 s") })
		defer watchdog.Stop()
		d := byteDraw(data)
		scn, cfg := genRun(d, true)
		cs := scn.CloneSet
		r := wideInt32(d, "replicas")
		cs.Spec.Replicas = &r
		if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
			ru.Partition = wideIntOrPercent(d, "partition")
			if ru.PodUpdatePolicy != model.PolicyInPlaceOnly {
				ru.MaxSurge = wideIntOrPercent(d, "maxSurge")
			}
			ru.MaxUnavailable = wideIntOrPercent(d, "maxUnavailable")
			if ru.InPlaceUpdateStrategy != nil {
				ru.InPlaceUpdateStrategy.GracePeriodSeconds = wideInt32(d, "grace")
			}
		}
		cs.Spec.ScaleStrategy.MaxUnavailable = wideIntOrPercent(d, "scaleMaxUnavailable")
		cs.Spec.MinReadySeconds = wideInt32(d, "minReadySeconds")
		if d("pds", 0, 1) == 1 {
			v := wideInt32(d, "pds")
			cs.Spec.ProgressDeadlineSeconds = &v
		}
		for i := range cfg.Events {
			if cfg.Events[i].Change.Replicas != nil {
				v := wideInt32(d, "event.replicas")
				cfg.Events[i].Change.Replicas = &v
			}
		}
		if d("longDelays", 0, 3) == 3 {
			long := Seconds(d("long.min", 0, 1e9), d("long.max", 0, 1e9))
			cfg.Delays.Ready, cfg.Delays.Hook = long, long
		}
		cfg.MaxSteps = min(cfg.MaxSteps, 60)
		cfg.MaxPods = wideMaxPods
		admitted := len(model.ValidateStored(cs, scn.Pods)) == 0
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Run(scn, cfg)
		runtime.ReadMemStats(&after)
		// 60 steps of at most 60 pods: a few hundred KB per step at most.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
			t.Fatalf("the run allocated %d MB", alloc>>20)
		}
		if err != nil {
			var le *clonesetcore.LimitError
			if errors.As(err, &le) || (r > wideMaxPods || hasEventAbove(cfg, wideMaxPods)) {
				return
			}
			t.Fatalf("Run: %v", err)
		}
		if len(res.Steps) > cfg.MaxSteps {
			t.Fatalf("%d steps, limit %d", len(res.Steps), cfg.MaxSteps)
		}
		if !admitted {
			return
		}
		for _, v := range res.Violations() {
			if v.Invariant == InvConvergence {
				continue // 60 steps are too few for the bound of such worlds
			}
			t.Errorf("%v (%s)", v, describeConfig(cs.Spec.Replicas, cfg))
		}
	})
}

func hasEventAbove(cfg Config, limit int) bool {
	for _, e := range cfg.Events {
		if e.Change.Replicas != nil && int(*e.Change.Replicas) > limit {
			return true
		}
	}
	return false
}
