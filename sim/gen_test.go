package sim

import (
	"fmt"
	"strconv"
	"time"

	"github.com/clonecore/cloneset/model"
)

// draw returns an integer in [lo, hi]; label names the choice (rapid prints it
// when a case fails).
type draw func(label string, lo, hi int) int

// genWorld builds a random CloneSet (valid for the webhook, apart from the
// both-below-1 rule the loader tolerates) and a random simulation of it: world
// delays, possibly faults, and up to five scripted changes. faults decides
// whether faults may be injected at all.
func genWorld(d draw, faults bool) (*model.Scenario, Config) {
	pick := func(label string, n int) int { return d(label, 0, n-1) }
	flip := func(label string) bool { return d(label, 0, 1) == 1 }
	replicas := int32(d("replicas", 0, 6))
	cs := &model.CloneSet{
		APIVersion: model.APIVersionV1beta1, Name: "demo", Namespace: "default", UID: "uid-demo", Generation: 1,
		Spec: model.CloneSetSpec{
			Replicas: &replicas,
			Selector: &model.LabelSelector{MatchLabels: map[string]string{"app": "demo"}},
		},
	}
	containers := []model.Container{{Name: "app", Image: "img:v1"}}
	if flip("envFromMetadata") {
		// A label change of example.io/tier is then an env-from-metadata
		// in-place update: the kruise daemon restarts the container.
		containers[0].Env = []model.EnvVar{{Name: "TIER", FieldPath: "metadata.labels['example.io/tier']"}}
	}
	if flip("sidecar") {
		containers = append(containers, model.Container{Name: "side", Image: "side:v1"})
	}
	tmpl := model.PodTemplate{Labels: map[string]string{"app": "demo"}, Spec: model.PodSpec{Containers: containers}}

	// Lifecycle hooks; the template may carry their markers.
	if flip("lifecycle") {
		l := &model.Lifecycle{}
		hook := func(name string) *model.LifecycleHook {
			if !flip(name) {
				return nil
			}
			h := &model.LifecycleHook{MarkPodNotReady: flip(name + ".markPodNotReady")}
			key := "example.io/" + name
			switch pick(name+".handler", 3) {
			case 0:
				h.LabelsHandler = map[string]string{key: "true"}
			case 1:
				h.FinalizersHandler = []string{key}
			default:
				h.LabelsHandler = map[string]string{key: "true"}
				h.FinalizersHandler = []string{key + "-f"}
			}
			if flip(name + ".inTemplate") {
				for k, v := range h.LabelsHandler {
					tmpl.Labels[k] = v
				}
			}
			return h
		}
		l.PreDelete = hook("preDelete")
		l.InPlaceUpdate = hook("inPlaceUpdate")
		l.PreNormal = hook("preNormal")
		cs.Spec.Lifecycle = l
	}
	tmpl.Raw = model.TemplateTree(tmpl)
	cs.Spec.Template = tmpl

	policy := []string{model.PolicyReCreate, model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly}[pick("policy", 3)]
	if d("onDelete", 0, 9) == 9 {
		cs.Spec.UpdateStrategy.Type = model.UpdateStrategyOnDelete
	} else {
		ru := &model.RollingUpdateStrategy{PodUpdatePolicy: policy}
		ru.Partition = genIntOrPercent(d, "partition", int(replicas)+1, []string{"0%", "25%", "50%", "100%"})
		if policy != model.PolicyInPlaceOnly {
			ru.MaxSurge = genIntOrPercent(d, "maxSurge", 2, []string{"25%", "50%"})
		}
		ru.MaxUnavailable = genIntOrPercent(d, "maxUnavailable", 3, []string{"20%", "50%"})
		if g := d("grace", 0, 3); g > 0 && policy != model.PolicyReCreate {
			ru.InPlaceUpdateStrategy = &model.InPlaceUpdateStrategy{GracePeriodSeconds: int32(g * 2)}
		}
		cs.Spec.UpdateStrategy = model.UpdateStrategy{Type: model.UpdateStrategyRollingUpdate, RollingUpdate: ru}
	}
	cs.Spec.MinReadySeconds = int32(d("minReadySeconds", 0, 3) * 3)
	if flip("progressDeadline") {
		pds := cs.Spec.MinReadySeconds + int32(d("pds", 1, 12)*15)
		cs.Spec.ProgressDeadlineSeconds = &pds
	}
	if flip("scaleMaxUnavailable") {
		v := model.FromInt(int32(d("scaleMaxUnavailable.value", 1, 3)))
		cs.Spec.ScaleStrategy.MaxUnavailable = &v
	}
	cs.Spec.ScaleStrategy.ExcludePreparingDelete = d("excludePreparingDelete", 0, 3) == 0
	cs.Spec.ScaleStrategy.EnablePVCReuse = flip("enablePVCReuse")
	if flip("volumeClaimTemplate") {
		cs.Spec.VolumeClaimTemplates = []model.VolumeClaimTemplate{{
			Name: "data", StorageRequest: "1Gi",
			Raw: map[string]any{"metadata": map[string]any{"name": "data"}, "spec": map[string]any{"resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}},
		}}
	}
	model.SetDefaults(cs)
	// Keep the webhook's both-below-1 rule: some pod must be able to move.
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if _, s, u := budgetOf(cs); s < 1 && u < 1 {
			one := model.FromInt(1)
			ru.MaxUnavailable = &one
		}
	}

	scn := &model.Scenario{
		Description: "generated", Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Gates: model.DefaultFeatureGates(), CloneSet: cs,
	}
	scn.Gates.CloneSetPartitionRollback = d("gate.rollback", 0, 3) == 0
	scn.Gates.PreparingUpdateAsUpdate = d("gate.puau", 0, 3) == 0
	scn.Gates.CloneSetShortHash = d("gate.shorthash", 0, 3) == 0
	scn.Controller.ScalingExcludePreparingDelete = d("flag.exclude", 0, 5) == 0

	cfg := DefaultConfig()
	cfg.Seed = uint64(d("seed", 0, 1<<20))
	sec := func(label string, hi int) Range {
		lo := d(label+".min", 0, hi)
		return Seconds(lo, lo+d(label+".spread", 0, hi))
	}
	cfg.Delays = Delays{
		Schedule: sec("schedule", 2), Start: sec("start", 3), Ready: sec("ready", 5), InPlace: sec("inPlace", 4),
		Terminate: sec("terminate", 4), Hook: sec("hook", 6), Reconcile: time.Duration(d("reconcile", 0, 1)) * time.Second,
		Requeue: time.Duration(d("requeue", 0, 20)) * time.Millisecond,
	}
	cfg.MaxSteps = 3000

	n := d("events", 0, 5)
	at := 0
	version := 1
	for i := 0; i < n; i++ {
		at += d(fmt.Sprintf("event%d.after", i), 0, 60)
		var ch Change
		switch pick(fmt.Sprintf("event%d.kind", i), 10) {
		case 0:
			r := int32(d(fmt.Sprintf("event%d.replicas", i), 0, 6))
			ch.Replicas = &r
		case 1, 2, 3:
			version++
			ch.Image = "img:v" + strconv.Itoa(version)
			if d(fmt.Sprintf("event%d.revert", i), 0, 4) == 4 {
				ch.Image = "img:v1"
			}
		case 4:
			if policy == model.PolicyInPlaceOnly {
				ch.TemplateLabels = map[string]string{"example.io/version": strconv.Itoa(i)}
			} else {
				ch.Env = []EnvVar{{Name: "VERSION", Value: strconv.Itoa(i)}}
			}
		case 5:
			ch.Partition = genIntOrPercent(d, fmt.Sprintf("event%d.partition", i), 6, []string{"0%", "50%", "100%"})
			if ch.Partition == nil {
				z := model.FromInt(0)
				ch.Partition = &z
			}
		case 6:
			p := flip(fmt.Sprintf("event%d.paused", i))
			ch.Paused = &p
		case 7:
			ch.PickPodsToDelete = d(fmt.Sprintf("event%d.podsToDelete", i), 1, 2)
		case 8:
			ch.TemplateLabels = map[string]string{"example.io/tier": []string{"a", "b", ""}[pick(fmt.Sprintf("event%d.tier", i), 3)]}
		default:
			if policy != model.PolicyInPlaceOnly {
				ch.MaxSurge = genIntOrPercent(d, fmt.Sprintf("event%d.maxSurge", i), 2, []string{"25%", "50%"})
			}
			ch.MaxUnavailable = genIntOrPercent(d, fmt.Sprintf("event%d.maxUnavailable", i), 3, []string{"20%", "50%"})
			if ch.MaxUnavailable == nil && ch.MaxSurge == nil {
				one := model.FromInt(1)
				ch.MaxUnavailable = &one
			}
		}
		cfg.Events = append(cfg.Events, Event{At: time.Duration(at) * time.Second, Change: ch})
	}
	// The last change resumes a paused rollout, so that runs can converge.
	if ru := cs.Spec.UpdateStrategy.RollingUpdate; ru != nil && n > 0 && flip("resumeAtEnd") {
		f := false
		cfg.Events = append(cfg.Events, Event{At: time.Duration(at+d("resume.after", 1, 30)) * time.Second, Change: Change{Paused: &f}})
	}

	if faults && d("faults", 0, 2) == 2 {
		switch pick("fault.kind", 4) {
		case 0:
			cfg.Faults.NeverReady.Probability = float64(d("fault.neverReady.pct", 10, 50)) / 100
		case 1:
			cfg.Faults.NeverReady.Images = []string{"img:v2"}
		case 2:
			cfg.Faults.Crash = CrashFault{Selection: Selection{Probability: float64(d("fault.crash.pct", 10, 60)) / 100},
				Up: time.Duration(d("fault.crash.up", 1, 20)) * time.Second, Down: time.Duration(d("fault.crash.down", 1, 20)) * time.Second}
		default:
			mode := NodeLossEvict
			if flip("fault.nodeLoss.fail") {
				mode = NodeLossFail
			}
			cfg.Faults.NodeLoss = []NodeLoss{{Node: "node-" + strconv.Itoa(pick("fault.nodeLoss.node", 3)),
				At: time.Duration(d("fault.nodeLoss.at", 0, 120)) * time.Second, Mode: mode,
				After: time.Duration(d("fault.nodeLoss.after", 1, 40)) * time.Second}}
		}
		cfg.MaxSteps = 400
	}
	// Drawn last, so that the earlier draws of recorded inputs keep their
	// meaning.
	scn.Gates.PreDownloadImageForInPlaceUpdate = d("gate.predownload", 0, 1) == 1
	return scn, cfg
}

// genIntOrPercent draws nil, an integer in [0, hi] or one of the percentages.
func genIntOrPercent(d draw, label string, hi int, pcts []string) *model.IntOrPercent {
	switch d(label+".kind", 0, 2) {
	case 0:
		return nil
	case 1:
		v := model.FromInt(int32(d(label+".int", 0, hi)))
		return &v
	default:
		v := model.FromString(pcts[d(label+".pct", 0, len(pcts)-1)])
		return &v
	}
}

// genRun is genWorld, possibly started from a CloneSet at rest: the world is
// first run without scripted changes and faults, and its final snapshot (pods,
// PVCs, revisions, status) becomes the scenario, so that runs also take over
// existing pods.
func genRun(d draw, faults bool) (*model.Scenario, Config) {
	scn, cfg := genWorld(d, faults)
	if d("warm", 0, 1) == 1 {
		warm := cfg
		warm.Events, warm.Faults, warm.MaxSteps = nil, Faults{}, 2000
		s, err := New(scn, warm)
		if err == nil {
			if _, err := s.Run(); err == nil {
				scn = s.Cluster().Snapshot()
			}
		}
	}
	return scn, cfg
}
