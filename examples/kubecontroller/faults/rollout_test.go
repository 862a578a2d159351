package faults

import (
	"fmt"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/kruisecrd"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	"github.com/clonecore/cloneset/internal/cisummary"
	"github.com/clonecore/cloneset/podtemplate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The rollout of BenchmarkRollout and TestRollout100Pods: the four steps
// the issue of scale asks to measure, run with each controller of a
// comparison in turn (the project's clonesetcontroller and OpenKruise
// v1.9.0's CloneSet controller, each as a process of its own so that its
// CPU time and peak memory are its own) on one control plane of the
// comparison's own (kwok nodes in three zones, kube-scheduler placing the
// pods, the audit log on):
//
//  1. scale out from 0 to n pods;
//  2. an in-place image update with maxUnavailable 10 %;
//  3. a recreate update (a new image) with maxSurge 10 % (maxUnavailable stays
//     10 %: v1beta1's validation refuses maxUnavailable 0 whatever maxSurge,
//     quirk B17 of docs/spec/lifecycle-status-validation.md, and so does the
//     library: a draft of this benchmark waited in vain for such a rollout);
//  4. a scale-in to n/10.
//
// Each step ends when the CloneSet has converged (its status and the pods
// themselves, as in the fault tests). The pod watch checks the budgets of
// steps 2 and 3 at every event, and the audit log that nothing was created
// or deleted twice: the rollout is a test of the project's controller at
// size as well as a measure of it (kruise's findings are reported, not
// failed on).
//
// The CloneSet is written fully defaulted (the spec as OpenKruise's
// mutating webhook leaves it, the template by podtemplate.Default), and so
// is every change, so that neither controller needs a webhook. Each
// controller runs with the CloneSet definition it ships: the project's
// (config/manifests/01-crd-clonesets.yaml) for clonesetcontroller, kruise's own (its module's
// config/crd/bases, with ImagePullJob's) for kruise's. Between turns the
// CloneSet is deleted and the next turn starts once its pods are gone; the
// turns alternate their order from one comparison to the next.

// imageV3 is the image of the recreate step.
const imageV3 = "example.com/web:v3"

// rolloutName is the CloneSet of the rollout.
const rolloutName = "rollout"

// clientLimit is the client-side rate limit both controllers of a
// comparison run with.
type clientLimit struct {
	name   string  // as the lines print it
	metric string  // as the benchmark names it (no blank)
	qps    float64 // requests per second; 0: no client-side limit
	burst  int
}

// The two client settings of the comparison: none (the project's
// controller's default) and kruise-manager's defaults.
var (
	noClientLimit     = clientLimit{name: "no client-side rate limit", metric: "no-limit"}
	kruiseClientLimit = clientLimit{name: "QPS 30, burst 50 (kruise's defaults)", metric: "qps30-burst50", qps: 30, burst: 50}
)

// contender is a controller the rollout runs with.
type contender struct {
	name string // as the lines print it
	// install installs the CloneSet definition the controller expects.
	install func(tb testing.TB, cp *controlplane.ControlPlane)
	// start runs the controller for e's namespace, its metrics on
	// metrics, net/http/pprof on pprof (none when empty), with limit, and
	// returns once it has started its workers.
	start func(e *env, metrics, pprof string, limit clientLimit) *controlplane.Process
	// checked: what the witnesses find fails the test (the project's
	// controller); for the peer it is reported.
	checked bool
}

// ownContender is the project's controller, on the project's definition,
// watching the rollout's namespace.
var ownContender = contender{
	name:    "clonesetcontroller",
	checked: true,
	install: func(tb testing.TB, cp *controlplane.ControlPlane) {
		if err := installOwnCRD(tb.Context(), cp); err != nil {
			tb.Fatal(err)
		}
	},
	start: func(e *env, metrics, pprof string, limit clientLimit) *controlplane.Process {
		args := []string{"--metrics-bind-address", metrics, "--pprof-bind-address", pprof}
		if limit.qps > 0 {
			args = append(args, "--kube-api-qps", formatQPS(limit.qps), "--kube-api-burst", strconv.Itoa(limit.burst))
		}
		// Alone, as kruise's controller runs: no webhooks (the rollout
		// writes fully defaulted CloneSets; compareRollout removes the
		// webhook configurations).
		args = append(args, "--enable-webhooks=false")
		args = append(args, strings.Fields(os.Getenv("CLONESET_BENCH_OWN_ARGS"))...)
		e.sys.Env = strings.Fields(os.Getenv("CLONESET_BENCH_OWN_ENV"))
		return e.startController("controller", e.identity(1), args...).Process
	},
}

// kruiseContender is kruise's CloneSet controller, on kruise's definitions,
// watching every namespace (as kruise-manager does; the turn's namespace
// is the only one with pods).
var kruiseContender = contender{
	name: "kruise",
	install: func(tb testing.TB, cp *controlplane.ControlPlane) {
		_, crds := kruisePeer(tb)
		if err := kruisecrd.Install(tb.Context(), cp, crds...); err != nil {
			tb.Fatal(err)
		}
	},
	start: func(e *env, metrics, pprof string, limit clientLimit) *controlplane.Process {
		binary, _ := kruisePeer(e.t)
		args := []string{"--kubeconfig", e.adminIdentity("kruise-1").Kubeconfig, "--metrics-bind-address", metrics, "--health-probe-bind-address", "0", "--pprof-bind-address", pprof}
		if limit.qps > 0 {
			args = append(args, "--kube-api-qps", formatQPS(limit.qps), "--kube-api-burst", strconv.Itoa(limit.burst))
		} else {
			args = append(args, "--kube-api-qps", "-1")
		}
		return e.startBinary("kruise", binary, args)
	},
}

func formatQPS(qps float64) string { return strconv.FormatFloat(qps, 'f', -1, 64) }

// stepCost is what one step of the rollout cost one controller.
type stepCost struct {
	step       string
	wall       time.Duration
	reconciles float64 // controller_runtime_reconcile_total, all results
	writes     int     // the controller's writes in the audit log, refused ones included
	refused    int
	controller controlplane.Usage // CPU time in the step; peak memory so far
	apiServer  controlplane.Usage // the same for kube-apiserver
}

// add adds the step o to the total c: times and counts add up, the peaks
// are the larger.
func (c stepCost) add(o stepCost) stepCost {
	c.wall += o.wall
	c.reconciles += o.reconciles
	c.writes += o.writes
	c.refused += o.refused
	c.controller.CPU += o.controller.CPU
	c.apiServer.CPU += o.apiServer.CPU
	c.controller.PeakRSS = max(c.controller.PeakRSS, o.controller.PeakRSS)
	c.apiServer.PeakRSS = max(c.apiServer.PeakRSS, o.apiServer.PeakRSS)
	return c
}

// String is the step's numbers in one line.
func (c stepCost) String() string {
	return fmt.Sprintf("%7.1fs wall, %5.0f reconciles, %5d writes (%d refused), CPU controller %6.2fs kube-apiserver %6.2fs, peak memory controller %4d MiB kube-apiserver %4d MiB",
		c.wall.Seconds(), c.reconciles, c.writes, c.refused, c.controller.CPU.Seconds(), c.apiServer.CPU.Seconds(), c.controller.PeakRSS>>20, c.apiServer.PeakRSS>>20)
}

// rolloutCost is what the whole rollout cost one controller, and what the
// witnesses found.
type rolloutCost struct {
	contender  contender
	steps      []stepCost
	twice      []string // objects created or deleted twice (audit log)
	violations []string // budget violations (pod watch)
}

// total is the rollout's cost over its steps.
func (r rolloutCost) total() stepCost {
	t := stepCost{step: "total"}
	for _, s := range r.steps {
		t = t.add(s)
	}
	return t
}

// rolloutStep is one step: the change it makes and where it converges.
type rolloutStep struct {
	name     string
	change   func(e *env)
	replicas int
	image    string
	budget   *budget // checked at every pod event from the step's start; nil: none
}

// rolloutSteps are the four steps for n pods.
func rolloutSteps(n int) []rolloutStep {
	tenth := n / 10
	return []rolloutStep{
		{name: "scale-out", replicas: n, image: imageV1, change: func(e *env) { e.setReplicas(rolloutName, n) }},
		{name: "in-place image", replicas: n, image: imageV2, budget: &budget{maxActive: n, minReady: n - tenth},
			change: func(e *env) {
				e.patchCloneSet(rolloutName, map[string]any{"template": defaultedTemplate(e.t, imageV2)})
			}},
		{name: "recreate", replicas: n, image: imageV3, budget: &budget{maxActive: n + tenth, minReady: n - tenth},
			change: func(e *env) {
				e.patchCloneSet(rolloutName, map[string]any{
					"updateStrategy": map[string]any{"rollingUpdate": map[string]any{"podUpdatePolicy": "ReCreate", "maxSurge": "10%"}},
					"template":       defaultedTemplate(e.t, imageV3),
				})
			}},
		{name: "scale-in", replicas: tenth, image: imageV3, budget: &budget{maxActive: n, minReady: tenth},
			change: func(e *env) { e.setReplicas(rolloutName, tenth) }},
	}
}

// defaultedTemplate is the rollout's pod template with image, as
// OpenKruise's mutating webhook leaves it (podtemplate.Default).
func defaultedTemplate(tb testing.TB, image string) map[string]any {
	tb.Helper()
	t, err := podtemplate.Default(map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": rolloutName}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "main", "image": image}}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// createRolloutCloneSet creates the rollout's CloneSet, 0 replicas of
// imageV1 updated in place when possible with maxUnavailable 10 %, written
// as OpenKruise's mutating webhook (v1beta1) leaves it: every default set.
func (e *env) createRolloutCloneSet() {
	e.t.Helper()
	obj := map[string]any{
		"apiVersion": "apps.kruise.io/v1beta1", "kind": "CloneSet",
		"metadata": map[string]any{"name": rolloutName, "namespace": e.ns},
		"spec": map[string]any{
			"replicas":             int64(0),
			"revisionHistoryLimit": int64(10),
			"selector":             map[string]any{"matchLabels": map[string]any{"app": rolloutName}},
			"template":             defaultedTemplate(e.t, imageV1),
			"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{
				"podUpdatePolicy":       "InPlaceIfPossible",
				"inPlaceUpdateStrategy": map[string]any{},
				"partition":             int64(0),
				"maxUnavailable":        "10%",
				"maxSurge":              int64(0),
			}},
		},
	}
	if _, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Create(e.t.Context(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// deleteRolloutCloneSet deletes the rollout's CloneSet and its pods (the
// garbage collector may take half a minute to notice a CloneSet of a
// definition installed moments before) and waits until the pods are gone.
func (e *env) deleteRolloutCloneSet() {
	e.t.Helper()
	e.pods.clearBudget(rolloutName)
	background := metav1.DeletePropagationBackground
	if err := e.dyn.Resource(cloneSets).Namespace(e.ns).Delete(e.t.Context(), rolloutName, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		e.t.Fatal(err)
	}
	if err := e.cs.CoreV1().Pods(e.ns).DeleteCollection(e.t.Context(), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=" + rolloutName}); err != nil {
		e.t.Fatal(err)
	}
	// A minute, and 50 ms more per pod (kwok deletes 10,000 pods in minutes).
	present := e.pods.snapshot(rolloutName)
	timeout := convergeTimeout + time.Duration(present.active+present.terminating)*50*time.Millisecond
	deadline := time.Now().Add(timeout)
	for {
		s := e.pods.snapshot(rolloutName)
		if s.active == 0 && s.terminating == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the pods of the deleted CloneSet %s/%s are not gone after %s: %s", e.ns, rolloutName, timeout, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stepTimeout bounds each step of a rollout of n pods with limit (generous:
// the machine of CI has two shared cores; a client-side limit spaces the
// writes: a step writes at most six times per pod).
func stepTimeout(n int, limit clientLimit) time.Duration {
	d := time.Minute + time.Duration(n)*300*time.Millisecond
	if limit.qps > 0 {
		d += time.Duration(float64(6*n)/limit.qps*1.5) * time.Second
	}
	return d
}

// comparisons counts the comparisons of this run of the package: each
// starts with the contender after the one the previous started with.
var comparisons atomic.Int64

// compareRollout starts a control plane with nodes kwok nodes and runs the
// rollout of n pods with each contender in turn, with limit; it fails tb
// when a step does not converge, or when the project's controller breaks a
// budget or writes an object twice. It returns each contender's cost, in
// the order of contenders.
func compareRollout(tb testing.TB, n, nodes int, limit clientLimit, contenders []contender) []rolloutCost {
	tb.Helper()
	opts := controlPlaneOptions(nil)
	opts.Nodes = nodes
	cp := ownControlPlane(tb, opts)
	removeWebhookConfigurations(tb, cp)
	out := make([]rolloutCost, len(contenders))
	first := int(comparisons.Add(1)-1) % len(contenders)
	for k := range contenders {
		i := (first + k) % len(contenders)
		tb.Logf("rollout %d pods with %s (%s)", n, contenders[i].name, limit.name)
		out[i] = rolloutWith(tb, cp, contenders[i], n, limit)
	}
	return out
}

// rolloutWith runs the rollout of n pods with one controller on cp, in a
// namespace of its own, and deletes the CloneSet at the end.
func rolloutWith(tb testing.TB, cp *controlplane.ControlPlane, c contender, n int, limit clientLimit) rolloutCost {
	tb.Helper()
	setUp := time.Now()
	c.install(tb, cp)
	e := newEnv(tb, cp)
	metrics := freeAddress(tb)
	var pprof string
	dir := os.Getenv("CLONESET_BENCH_PROFILE_DIR")
	if dir != "" {
		pprof = freeAddress(tb)
	}
	proc := c.start(e, metrics, pprof, limit)
	stopProfiles := func() {}
	if dir != "" {
		stopProfiles = profile(tb, pprof, filepath.Join(dir, fmt.Sprintf("%s-%s-%s", limit.metric, c.name, e.ns)))
	}
	e.createRolloutCloneSet()
	e.waitConverged(rolloutName, 0, imageV1, time.Now())
	tb.Logf("%s: definitions installed, controller started, CloneSet created in %s", c.name, time.Since(setUp).Round(time.Millisecond))

	usage := func() (ctrl, api controlplane.Usage) {
		var err error
		if ctrl, err = proc.Usage(); err != nil {
			tb.Fatal(err)
		}
		if api, err = cp.Process(controlplane.APIServer).Usage(); err != nil {
			tb.Fatal(err)
		}
		return ctrl, api
	}
	result := rolloutCost{contender: c}
	for _, s := range rolloutSteps(n) {
		if s.budget != nil {
			e.pods.setBudget(rolloutName, *s.budget)
		}
		ctrl0, api0 := usage()
		reconciles0 := reconcileCount(metrics)
		start := time.Now()
		s.change(e)
		wall := e.waitConvergedWithin(rolloutName, s.replicas, s.image, start, stepTimeout(n, limit))
		ctrl1, api1 := usage()
		cost := stepCost{step: s.name, wall: wall, reconciles: reconcileCount(metrics) - reconciles0}
		cost.controller = controlplane.Usage{CPU: ctrl1.CPU - ctrl0.CPU, PeakRSS: ctrl1.PeakRSS}
		cost.apiServer = controlplane.Usage{CPU: api1.CPU - api0.CPU, PeakRSS: api1.PeakRSS}
		writes := e.auditWrites(start)
		for _, n := range writes.done {
			cost.writes += n
		}
		for _, n := range writes.refused {
			cost.refused += n
		}
		cost.writes += cost.refused
		// The step's cost at once, not only in the table at the end: a run
		// stopped early (the 10,000-pod one takes over an hour) keeps it.
		tb.Logf("%s %s: %s; %s", c.name, s.name, writes, cost)
		result.steps = append(result.steps, cost)
		result.twice = writes.twice // over the whole log: checked once, at the end
	}
	violations, highest, lowest, events, relists := e.pods.result(rolloutName)
	result.violations = violations
	report := tb.Logf
	if c.checked {
		report = tb.Errorf
		e.logHistory()
	}
	for _, s := range result.twice {
		report("%s: %s", c.name, s)
	}
	for _, v := range violations {
		report("%s: budget: %s", c.name, v)
	}
	tb.Logf("%s: pods at most %d active, at least %d ready; watch: %d events, %d relists", c.name, highest, lowest, events, relists)
	stopProfiles()
	tearDown := time.Now()
	proc.Stop()
	e.deleteRolloutCloneSet()
	tb.Logf("%s: controller stopped, CloneSet and pods gone in %s", c.name, time.Since(tearDown).Round(time.Millisecond))
	return result
}

// profileWindow is the length of each CPU profile profile takes.
const profileWindow = 5 * time.Second

// profile takes CPU profiles of the process serving net/http/pprof on
// address, one after the other (prefix-cpu-1.pb.gz, -2, ...), until the
// returned function is called, which waits for the last one to end and
// takes a heap profile (prefix-heap.pb.gz). go tool pprof reads the CPU
// profiles of a rollout together: go tool pprof -top prefix-cpu-*.pb.gz.
func profile(tb testing.TB, address, prefix string) (stop func()) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		tb.Fatal(err)
	}
	save := func(path, url string) error {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s", url, resp.Status)
		}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o644)
	}
	var done atomic.Bool
	finished := make(chan error, 1)
	go func() {
		var err error
		for i := 1; !done.Load() && err == nil; i++ {
			err = save(fmt.Sprintf("%s-cpu-%d.pb.gz", prefix, i), fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", address, int(profileWindow.Seconds())))
		}
		finished <- err
	}()
	return func() {
		done.Store(true)
		if err := <-finished; err != nil {
			tb.Errorf("CPU profile: %v", err)
		}
		if err := save(prefix+"-heap.pb.gz", "http://"+address+"/debug/pprof/heap"); err != nil {
			tb.Errorf("heap profile: %v", err)
		}
		tb.Logf("profiles: %s-*.pb.gz", prefix)
	}
}

// ratio is a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// comparisonLines renders a comparison: per step and in total, a line per
// contender ("<prefix> <contender> <step> <numbers>"), then the ratio of the
// first contender's numbers to the second's ("<prefix> ratio <step> ...").
func comparisonLines(prefix string, costs []rolloutCost) []string {
	var lines []string
	rows := func(pick func(r rolloutCost) stepCost, step string) {
		for _, r := range costs {
			lines = append(lines, fmt.Sprintf("%s %-18s %-15s %s", prefix, r.contender.name, step, pick(r)))
		}
		if len(costs) == 2 {
			a, b := pick(costs[0]), pick(costs[1])
			lines = append(lines, fmt.Sprintf("%s ratio %s/%s %-15s wall %.2f, reconciles %.2f, writes %.2f, CPU controller %.2f kube-apiserver %.2f, peak memory controller %.2f",
				prefix, costs[0].contender.name, costs[1].contender.name, step,
				ratio(a.wall.Seconds(), b.wall.Seconds()), ratio(a.reconciles, b.reconciles), ratio(float64(a.writes), float64(b.writes)),
				ratio(a.controller.CPU.Seconds(), b.controller.CPU.Seconds()), ratio(a.apiServer.CPU.Seconds(), b.apiServer.CPU.Seconds()),
				ratio(float64(a.controller.PeakRSS), float64(b.controller.PeakRSS))))
		}
	}
	for i, s := range costs[0].steps {
		rows(func(r rolloutCost) stepCost { return r.steps[i] }, s.step)
	}
	rows(rolloutCost.total, "total")
	return lines
}

// TestRollout100Pods is BenchmarkRollout's comparison at 100 pods on 5
// nodes without a client-side rate limit, in every run of the tests: the
// four steps converge with both controllers, and the project's controller
// breaks no budget and writes nothing twice. It prints the cost of each step
// for each controller and the ratios, the total's ratio last:
//
//	rollout 100 pods clonesetcontroller <step> <wall>s wall, <n> reconciles, <n> writes (...), CPU ..., peak memory ...
//	rollout 100 pods kruise             <step> ...
//	rollout 100 pods ratio clonesetcontroller/kruise <step> wall ..., CPU controller ..., peak memory controller ...
//
// (the numbers are reported, not checked: speed is measured by the
// benchmark).
func TestRollout100Pods(t *testing.T) {
	costs := compareRollout(t, 100, 5, noClientLimit, []contender{ownContender, kruiseContender})
	for _, line := range comparisonLines("rollout 100 pods", costs) {
		cisummary.Print(t, line)
	}
}

// BenchmarkRollout compares the rollout of $CLONESET_BENCH_PODS pods (1,000
// when unset) on $CLONESET_BENCH_NODES kwok nodes (50) in three zones with
// the project's controller and kruise's, at both client settings (a
// sub-benchmark each, on a control plane of its own: no-limit, and
// qps30-burst50, kruise-manager's defaults). For each step and controller
// it prints the wall time to converge, the reconciles, the writes (from the
// audit log), the CPU time of the controller process and of kube-apiserver,
// and their peak memory, then the ratios; it reports the totals as metrics.
// $CLONESET_BENCH_CONTROLLERS picks the controllers ("clonesetcontroller",
// "kruise", or both, the default, comma-separated);
// $CLONESET_BENCH_OWN_ARGS adds flags to the project's controller (e.g.
// --kube-api-http2), $CLONESET_BENCH_OWN_ENV variables to its environment
// (e.g. GOGC=50 GOMAXPROCS=1); $CLONESET_BENCH_PROFILE_DIR, when set, gets CPU
// profiles of each controller through the rollout and a heap profile at
// its end (profile). Each iteration is a whole comparison; run it with
// -benchtime=1x (scripts/bench-controlplane.sh does).
func BenchmarkRollout(b *testing.B) {
	n, nodes := envInt(b, "CLONESET_BENCH_PODS", 1000, 10), envInt(b, "CLONESET_BENCH_NODES", 50, 1)
	contenders := benchContenders(b)
	for _, limit := range []clientLimit{noClientLimit, kruiseClientLimit} {
		b.Run(limit.metric, func(b *testing.B) {
			for range b.N {
				costs := compareRollout(b, n, nodes, limit, contenders)
				fmt.Printf("rollout %d pods on %d nodes, %s:\n", n, nodes, limit.name)
				for _, line := range comparisonLines("  ", costs) {
					fmt.Println(line)
				}
				for _, r := range costs {
					t := r.total()
					b.ReportMetric(t.wall.Seconds(), r.contender.name+"-wall-s")
					b.ReportMetric(t.controller.CPU.Seconds(), r.contender.name+"-cpu-s")
					b.ReportMetric(float64(t.controller.PeakRSS>>20), r.contender.name+"-peak-MiB")
					b.ReportMetric(float64(t.writes), r.contender.name+"-writes")
				}
				if len(costs) == 2 {
					a, k := costs[0].total(), costs[1].total()
					b.ReportMetric(ratio(a.controller.CPU.Seconds(), k.controller.CPU.Seconds()), "cpu-ratio")
					b.ReportMetric(ratio(float64(a.controller.PeakRSS), float64(k.controller.PeakRSS)), "peak-ratio")
				}
			}
		})
	}
}

// benchContenders reads $CLONESET_BENCH_CONTROLLERS (both when unset).
func benchContenders(b *testing.B) []contender {
	s := os.Getenv("CLONESET_BENCH_CONTROLLERS")
	if s == "" {
		return []contender{ownContender, kruiseContender}
	}
	var out []contender
	for _, name := range strings.Split(s, ",") {
		switch strings.TrimSpace(name) {
		case ownContender.name:
			out = append(out, ownContender)
		case kruiseContender.name:
			out = append(out, kruiseContender)
		default:
			b.Fatalf("CLONESET_BENCH_CONTROLLERS=%q: %q is neither %s nor %s", s, name, ownContender.name, kruiseContender.name)
		}
	}
	return out
}

// envInt reads the environment variable name as a number of at least min
// (def when unset).
func envInt(b *testing.B, name string, def, min int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < min {
		b.Fatalf("%s=%q: want a number, at least %d", name, s, min)
	}
	return v
}

// removeWebhookConfigurations deletes the project's webhook configurations
// from cp: both controllers run alone in the comparison, without webhooks
// (the rollout writes fully defaulted CloneSets), as the issue measures
// them, and a webhook configuration with nothing behind it would refuse
// the writes (failurePolicy Fail).
func removeWebhookConfigurations(tb testing.TB, cp *controlplane.ControlPlane) {
	tb.Helper()
	hooks := cp.Clientset().AdmissionregistrationV1()
	if err := hooks.MutatingWebhookConfigurations().Delete(tb.Context(), webhook.MutatingConfigurationName, metav1.DeleteOptions{}); err != nil {
		tb.Fatal(err)
	}
	if err := hooks.ValidatingWebhookConfigurations().Delete(tb.Context(), webhook.ValidatingConfigurationName, metav1.DeleteOptions{}); err != nil {
		tb.Fatal(err)
	}
}
