package faults

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The faults of the webhooks: each checks, besides the rollout's
// witnesses, that kube-apiserver accepted no CloneSet the webhooks would
// refuse and stored none they did not default, and that no write was lost.

// cloneSetWriter writes small CloneSets (replicas 0: no pod) into a
// namespace, one after the other, until stopped: valid ones of both
// versions (v1alpha1 ones go through the conversion webhook to be stored),
// each written again until it is accepted, and every fourth an invalid one
// (one replica, maxSurge and maxUnavailable both 0), which must be refused.
type cloneSetWriter struct {
	e    *env
	stop chan struct{}
	done chan struct{}

	mu sync.Mutex
	// accepted are the valid CloneSets stored, in order.
	accepted []string
	// attempts counts the valid writes refused before one was accepted,
	// by the reason of the refusal.
	attempts map[string]int
	// invalidRefused and invalidAccepted count the invalid writes.
	invalidRefused  int
	invalidAccepted []string
	// unexpected are the answers that are neither an acceptance nor a
	// refusal of the kinds a webhook gives.
	unexpected []string
}

// writerPause is the pause between two writes.
const writerPause = 40 * time.Millisecond

// startWriter starts a writer in the test's namespace.
func (e *env) startWriter() *cloneSetWriter {
	w := &cloneSetWriter{e: e, stop: make(chan struct{}), done: make(chan struct{}), attempts: map[string]int{}}
	go w.run()
	e.t.Cleanup(w.halt)
	return w
}

// halt stops the writer and waits for its last write (once).
func (w *cloneSetWriter) halt() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// writtenCloneSet is the i-th CloneSet of the writer.
func writtenCloneSet(ns string, i int) (version string, obj *unstructured.Unstructured, invalid bool) {
	name := fmt.Sprintf("written-%d", i)
	version = "v1beta1"
	if i%2 == 1 {
		version = "v1alpha1"
	}
	invalid = i%4 == 3
	spec := map[string]any{
		"replicas": int64(0),
		"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
		"template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": name}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "main", "image": imageV1}}},
		},
	}
	if invalid {
		// Both budgets 0 are refused once there is a replica (v1alpha1's
		// rule asks for one).
		spec["replicas"] = int64(1)
		if version == "v1beta1" {
			spec["updateStrategy"] = map[string]any{"rollingUpdate": map[string]any{"maxSurge": int64(0), "maxUnavailable": int64(0)}}
		} else {
			spec["updateStrategy"] = map[string]any{"maxSurge": int64(0), "maxUnavailable": int64(0)}
		}
	}
	return version, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.kruise.io/" + version, "kind": "CloneSet",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}, invalid
}

// refusalReason classifies a refused write: "webhook unavailable" (kube-
// apiserver could not call a webhook: failurePolicy Fail), "invalid" (the
// validating webhook's refusal), or "" for anything else.
func refusalReason(err error) string {
	switch {
	case apierrors.IsInvalid(err):
		return "invalid"
	case strings.Contains(err.Error(), "failed calling webhook"):
		return "webhook unavailable"
	}
	return ""
}

func (w *cloneSetWriter) run() {
	defer close(w.done)
	ctx := context.Background()
	for i := 0; ; i++ {
		version, obj, invalid := writtenCloneSet(w.e.ns, i)
		res := w.e.dyn.Resource(schema.GroupVersionResource{Group: "apps.kruise.io", Version: version, Resource: "clonesets"}).Namespace(w.e.ns)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(writerPause):
			}
			_, err := res.Create(ctx, obj.DeepCopy(), metav1.CreateOptions{})
			w.mu.Lock()
			reason := ""
			if err != nil {
				reason = refusalReason(err)
			}
			switch {
			case invalid && err == nil:
				w.invalidAccepted = append(w.invalidAccepted, obj.GetName())
			case invalid && reason != "":
				w.invalidRefused++
			case err == nil:
				w.accepted = append(w.accepted, obj.GetName())
			case reason != "" && reason != "invalid":
				w.attempts[reason]++
			default:
				w.unexpected = append(w.unexpected, fmt.Sprintf("%s (%s): %v", obj.GetName(), version, err))
			}
			w.mu.Unlock()
			if invalid || err == nil || reason == "" || reason == "invalid" {
				break // the next CloneSet
			}
		}
	}
}

// check stops the writer and checks what it saw: no invalid CloneSet
// accepted, no answer of another kind, and every accepted one stored with
// the mutating webhook's defaults; it returns a line for the log.
func (w *cloneSetWriter) check() string {
	w.halt()
	t, e := w.e.t, w.e
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, name := range w.invalidAccepted {
		t.Errorf("an invalid CloneSet was accepted: %s", name)
	}
	for _, u := range w.unexpected {
		t.Errorf("a write got an answer no webhook gives: %s", u)
	}
	for _, name := range w.accepted {
		u, err := e.dyn.Resource(cloneSets).Namespace(e.ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("an accepted CloneSet was lost: %s: %v", name, err)
			continue
		}
		limit, _, _ := unstructured.NestedInt64(u.Object, "spec", "revisionHistoryLimit")
		policy, _, _ := unstructured.NestedString(u.Object, "spec", "updateStrategy", "rollingUpdate", "podUpdatePolicy")
		if limit != 10 || policy != "ReCreate" {
			t.Errorf("CloneSet %s stored without the mutating webhook's defaults: revisionHistoryLimit %d, podUpdatePolicy %q", name, limit, policy)
		}
	}
	if len(w.accepted) == 0 || w.invalidRefused == 0 {
		t.Errorf("the writer wrote too little: %d accepted, %d invalid refused", len(w.accepted), w.invalidRefused)
	}
	return fmt.Sprintf("writer: %d CloneSets accepted and stored defaulted, %d invalid ones refused, 0 accepted; valid writes refused before they were accepted: %v",
		len(w.accepted), w.invalidRefused, w.attempts)
}

// startWebhookProcess runs a process that serves the webhooks only: its
// controller watches a namespace of its own with nothing in it.
func (e *env) startWebhookProcess(name string, id installtest.Identity) *installtest.Controller {
	e.t.Helper()
	idle, err := e.cp.NewNamespace(e.t.Context(), "idle")
	if err != nil {
		e.t.Fatal(err)
	}
	return e.startProcess(name, id, "--namespace", idle)
}

// TestFaultWebhookDown: the webhooks served by a process of their own (the
// controller runs with --enable-webhooks=false, as for users who serve them
// elsewhere), stopped in the middle of a recreate update with maxSurge and
// started again 3 s later. With the failure policy OpenKruise ships (Fail)
// kube-apiserver refuses what no webhook judged: the controller's pod
// creates (the pod webhook) and a user's CloneSet writes, valid or not;
// nothing is accepted meanwhile. Once the webhooks are back, the rollout
// converges: nothing lost, nothing written twice, every CloneSet written
// stored defaulted.
func TestFaultWebhookDown(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	hooks := e.startWebhookProcess("webhooks", e.identity(2))
	e.startController("controller", e.identity(1), "--enable-webhooks=false")
	e.settle(recreate)
	writer := e.startWriter()
	var down time.Time
	wait := e.during(recreate.name, updatedAtLeast(6), func() error {
		hooks.Remove()
		down = time.Now()
		return hooks.Stop()
	})
	start := time.Now()
	e.setImage(recreate.name, imageV2)
	wait()
	// While down: a user's writes are refused, valid or not.
	if err := e.tryCreateCloneSet(rollout{name: "while-down", replicas: 1, policy: "ReCreate", maxUnavailable: 1}, imageV1); err == nil || refusalReason(err) != "webhook unavailable" {
		t.Errorf("a valid CloneSet written while the webhooks are down: %v; want refused, the webhook unavailable", err)
	}
	if err := e.tryCreateCloneSet(rollout{name: "invalid-while-down", replicas: 1, policy: "ReCreate"}, imageV1); err == nil {
		t.Error("an invalid CloneSet written while the webhooks are down was accepted")
	}
	time.Sleep(3*time.Second - time.Since(down))
	e.startWebhookProcess("webhooks-again", e.identity(2))
	t.Logf("webhooks down for %s", time.Since(down).Round(time.Millisecond))
	converged := e.waitConverged(recreate.name, recreate.replicas, imageV2, start)
	t.Log(writer.check())
	report := e.verdict("webhook down", recreate.name, start, converged)
	refused := report.refused["create pods 500"]
	t.Logf("the controller's pod creates refused while the webhooks were down: %d", refused)
	if refused == 0 {
		t.Error("no pod create of the controller was refused: the fault did not reach the pod webhook")
	}
}

// TestFaultControllerRestarted: the one process (controller and webhooks)
// stopped (SIGTERM) in the middle of an in-place update and started again,
// while a user writes CloneSets: meanwhile kube-apiserver refuses the
// writes it cannot have judged, and the user writes them again; nothing
// invalid is accepted, every CloneSet written is stored defaulted, and the
// rollout converges with nothing written twice.
func TestFaultControllerRestarted(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	first := e.startController("controller-1", e.identity(1))
	e.settle(inPlace)
	writer := e.startWriter()
	var down time.Time
	wait := e.during(inPlace.name, updatedAtLeast(6), func() error {
		first.Remove()
		down = time.Now()
		return first.Stop()
	})
	start := time.Now()
	e.setImage(inPlace.name, imageV2)
	wait()
	e.startController("controller-2", e.identity(1))
	t.Logf("restarted in %s", time.Since(down).Round(time.Millisecond))
	converged := e.waitConverged(inPlace.name, inPlace.replicas, imageV2, start)
	t.Log(writer.check())
	e.verdict("controller restarted", inPlace.name, start, converged)
}

// The certificates' validities of TestFaultCertificateRotated (a serving
// certificate renewed every ~13 s, a CA every ~40 s) and how long its
// writes go on.
const (
	rotationServing = 20 * time.Second
	rotationCA      = 60 * time.Second
	rotationRun     = 50 * time.Second
)

// TestFaultCertificateRotated: two processes (leader election) manage their
// certificates with a serving certificate of 20 s and a CA of 60 s, and for
// 50 s (at least one new CA and several serving certificates, from either
// process) a user writes CloneSets of both versions (the conversion
// webhook) and invalid ones, while an in-place update rolls the pods and a
// scale-out creates new ones (the pod webhook): no write fails on a
// certificate (every valid one is accepted at its first write), every
// invalid one is refused, the rollout converges with nothing written twice.
func TestFaultCertificateRotated(t *testing.T) {
	cp := sharedControlPlane(t)
	e := newEnv(t, cp)
	// The certificates of the processes before were issued for a year:
	// the Secret starts again, so that its certificates are this test's.
	if err := e.cs.CoreV1().Secrets(installtest.Namespace).Delete(t.Context(), webhook.DefaultSecretName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	validity := []string{"--webhook-cert-validity", rotationServing.String(), "--webhook-ca-validity", rotationCA.String(),
		"--leader-elect", "--leader-election-namespace", e.ns, "--leader-election-lease-duration", "4s", "--leader-election-renew-deadline", "3s", "--leader-election-retry-period", "500ms"}
	procs := []*installtest.Controller{e.startController("controller-1", e.identity(1), validity...), e.startController("controller-2", e.identity(2), validity...)}
	for _, p := range procs {
		e.waitLog(p.Process, "webhook certificates: serving certificate loaded")
	}
	e.settle(inPlace)
	rotations := e.watchCertificates()
	writer := e.startWriter()
	begin := time.Now()
	// The in-place update once a serving certificate was renewed, the
	// scale-out (new pods) once a CA was.
	e.waitRotations(rotations, 2, 1)
	start := time.Now()
	e.setImage(inPlace.name, imageV2)
	converged := e.waitConverged(inPlace.name, inPlace.replicas, imageV2, start)
	e.waitRotations(rotations, 3, 2)
	e.pods.setBudget(inPlace.name, budget{maxActive: inPlace.replicas + 10, minReady: inPlace.replicas - inPlace.maxUnavailable})
	e.setReplicas(inPlace.name, inPlace.replicas+10)
	e.waitConverged(inPlace.name, inPlace.replicas+10, imageV2, start)
	if rest := rotationRun - time.Since(begin); rest > 0 {
		time.Sleep(rest)
	}
	serving, cas := rotations()
	t.Logf("certificates seen in %s: %d serving, %d CAs", time.Since(begin).Round(time.Second), serving, cas)
	line := writer.check()
	t.Log(line)
	if n := len(writer.attempts); n > 0 {
		t.Errorf("valid writes were refused during the rotation: %v", writer.attempts)
	}
	e.verdict("certificate rotated", inPlace.name, start, converged)
}

// waitRotations waits until rotations counts at least serving serving
// certificates and cas CAs (two CA validities at most).
func (e *env) waitRotations(rotations func() (int, int), serving, cas int) {
	e.t.Helper()
	deadline := time.Now().Add(2 * rotationCA)
	for {
		s, c := rotations()
		if s >= serving && c >= cas {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d serving certificates and %d CAs after %s, want %d and %d: the certificates are not renewed", s, c, 2*rotationCA, serving, cas)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// watchCertificates polls the certificates' Secret until the test ends and
// returns a function counting the serving certificates and the CAs it saw.
func (e *env) watchCertificates() func() (serving, cas int) {
	var mu sync.Mutex
	servingSeen, caSeen := map[string]bool{}, map[string]bool{}
	stop := make(chan struct{})
	done := make(chan struct{})
	serial := func(data []byte, into map[string]bool) {
		for {
			var block *pem.Block
			block, data = pem.Decode(data)
			if block == nil {
				return
			}
			if c, err := x509.ParseCertificate(block.Bytes); err == nil {
				into[c.SerialNumber.String()] = true
			}
		}
	}
	go func() {
		defer close(done)
		for {
			s, err := e.cs.CoreV1().Secrets(installtest.Namespace).Get(context.Background(), webhook.DefaultSecretName, metav1.GetOptions{})
			if err == nil {
				mu.Lock()
				serial(s.Data[webhook.SecretServingCert], servingSeen)
				serial(s.Data[webhook.SecretCABundle], caSeen)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	e.t.Cleanup(func() { close(stop); <-done })
	return func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(servingSeen), len(caSeen)
	}
}
