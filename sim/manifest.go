package sim

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/clonecore/cloneset/manifest"
)

// FromManifest turns a clonesetcore/v1alpha1 Simulation document (see
// manifest.LoadSimulation) into a Config: DefaultConfig with the document's
// settings on top. A nil document gives DefaultConfig.
func FromManifest(m *manifest.Simulation) (Config, error) {
	cfg := DefaultConfig()
	if m == nil {
		return cfg, nil
	}
	if m.Seed != nil {
		cfg.Seed = *m.Seed
	}
	if m.Steps != nil {
		cfg.MaxSteps = *m.Steps
	}
	if m.NodeCount > manifest.MaxSimulationNodes || len(m.Nodes) > manifest.MaxSimulationNodes {
		return cfg, fmt.Errorf("Simulation nodes: %d nodes, above the %d a cluster holds (manifest.MaxSimulationNodes)", max(m.NodeCount, len(m.Nodes)), manifest.MaxSimulationNodes)
	}
	cfg.Nodes = append([]string(nil), m.Nodes...)
	for i := 0; i < m.NodeCount; i++ {
		cfg.Nodes = append(cfg.Nodes, "node-"+strconv.Itoa(i))
	}
	if m.HookController != nil {
		cfg.HooksDisabled = !*m.HookController
	}
	if m.KruisePodReadyGate != nil {
		cfg.NoKruisePodReadyGate = !*m.KruisePodReadyGate
	}
	set := func(dst *Range, src *manifest.SimulationRange) {
		if src != nil {
			*dst = Range{Min: src.Min, Max: src.Max}
		}
	}
	d := m.Delays
	set(&cfg.Delays.Schedule, d.Schedule)
	set(&cfg.Delays.Start, d.Start)
	set(&cfg.Delays.Ready, d.Ready)
	set(&cfg.Delays.InPlace, d.InPlace)
	set(&cfg.Delays.Terminate, d.Terminate)
	set(&cfg.Delays.Hook, d.Hook)
	if d.Reconcile != nil {
		cfg.Delays.Reconcile = *d.Reconcile
	}
	if d.Requeue != nil {
		cfg.Delays.Requeue = *d.Requeue
	}
	f := m.Faults
	cfg.Faults.NeverReady = Selection{Images: append([]string(nil), f.NeverReady.Images...), Probability: f.NeverReady.Probability}
	cfg.Faults.Crash = CrashFault{Selection: Selection{Images: append([]string(nil), f.Crash.Images...), Probability: f.Crash.Probability},
		Up: f.Crash.Up, Down: f.Crash.Down}
	if !cfg.Faults.Crash.Empty() {
		if cfg.Faults.Crash.Up == 0 {
			cfg.Faults.Crash.Up = 30 * time.Second
		}
		if cfg.Faults.Crash.Down == 0 {
			cfg.Faults.Crash.Down = 10 * time.Second
		}
	}
	for _, nl := range f.NodeLoss {
		mode := NodeLossMode(nl.Mode)
		if mode == "" {
			mode = NodeLossEvict
		}
		if mode != NodeLossEvict && mode != NodeLossFail {
			return cfg, fmt.Errorf("%s: faults.nodeLoss: mode %q: want evict or fail", m.Source, nl.Mode)
		}
		cfg.Faults.NodeLoss = append(cfg.Faults.NodeLoss, NodeLoss{Node: nl.Node, At: nl.At, Mode: mode, After: nl.After})
	}
	for _, e := range m.Events {
		ch := Change{
			Replicas: e.Replicas, Image: e.Image, Container: e.Container, Partition: e.Partition, Paused: e.Paused,
			MaxSurge: e.MaxSurge, MaxUnavailable: e.MaxUnavailable, PickPodsToDelete: e.PickPodsToDelete,
			PodsToDelete: append([]string(nil), e.PodsToDelete...), DeletePods: append([]string(nil), e.DeletePods...),
		}
		names := make([]string, 0, len(e.Env))
		for k := range e.Env {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			ch.Env = append(ch.Env, EnvVar{Name: k, Value: e.Env[k]})
		}
		if len(e.TemplateLabels) > 0 {
			ch.TemplateLabels = make(map[string]string, len(e.TemplateLabels))
			for k, v := range e.TemplateLabels {
				ch.TemplateLabels[k] = v
			}
		}
		cfg.Events = append(cfg.Events, Event{At: e.At, Change: ch})
	}
	return cfg, nil
}
