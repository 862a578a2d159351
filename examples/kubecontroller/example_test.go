package kubecontroller_test

import (
	"context"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/requests"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The heart of Reconciler.Reconcile, once the objects are listed and the
// expectations satisfied: convert, plan, build the requests, send them,
// requeue as the plan asks.
func ExampleSender() {
	var (
		ctx  = context.Background()
		c    client.Client          // the manager's client
		objs kubecontroller.Objects // the CloneSet and its objects, from c
		exp  = kubecontroller.NewExpectations(0)
	)
	reconcileOnce := func() (reconcile.Result, error) {
		now := time.Now()
		scn, err := kubecontroller.Scenario(objs, kubecontroller.ScenarioOptions{Now: now})
		if err != nil {
			return reconcile.Result{}, reconcile.TerminalError(err) // the API server would not admit it
		}
		plan, _ := clonesetcore.Plan(scn)
		reqs, _ := requests.Build(scn, plan)
		sender := &kubecontroller.Sender{Client: c, Expectations: exp, Owner: "default/web", Now: now}
		if _, err := sender.Send(ctx, reqs); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{RequeueAfter: plan.RequeueAfter()}, nil
	}
	_ = reconcileOnce
}

// A controller manager running the reference controller for v1beta1
// CloneSets.
func ExampleReconciler_SetupWithManager() {
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{})
	if err != nil {
		panic(err)
	}
	r := &kubecontroller.Reconciler{Client: mgr.GetClient(), CloneSetGVK: kubecontroller.CloneSetV1beta1}
	if err := r.SetupWithManager(mgr); err != nil {
		panic(err)
	}
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		panic(err)
	}
}

// A manager whose cache's informers are direct ones, trimmed to what the
// reconcilers read, as cmd/clonesetcontroller builds it.
func ExampleNewDirectInformer() {
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Cache: cache.Options{NewInformer: kubecontroller.NewDirectInformer, DefaultTransform: kubecontroller.TrimForCache},
	})
	if err != nil {
		panic(err)
	}
	_ = mgr
}
