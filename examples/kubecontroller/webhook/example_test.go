package webhook_test

import (
	"fmt"
	"os"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	ctrl "sigs.k8s.io/controller-runtime"
)

// The binary's wiring: the webhook server with self-managed certificates in
// a manager, its rules the library's.
func ExampleNewServer() {
	cfg := ctrl.GetConfigOrDie()
	srv, err := webhook.NewServer(cfg, webhook.Options{Namespace: "clonesetcontroller-system"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{WebhookServer: srv, HealthProbeBindAddress: ":8081"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := srv.Setup(mgr, webhook.NewLibraryRules(mgr.GetAPIReader())); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = mgr.Start(ctrl.SetupSignalHandler())
}

// Renew's steps: the first run makes a CA and a serving certificate; the
// serving certificate is due at two thirds of its validity.
func ExampleRenew() {
	p := webhook.Policy{Hosts: []string{"webhook.ns.svc"}, CAValidity: 90 * 24 * time.Hour, ServingValidity: 30 * 24 * time.Hour}
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	a, step, _ := webhook.Renew(webhook.Artifacts{}, p, start)
	fmt.Println(step)
	_, step, _ = webhook.Renew(a, p, start.Add(10*24*time.Hour))
	fmt.Println(step)
	_, step, _ = webhook.Renew(a, p, start.Add(21*24*time.Hour))
	fmt.Println(step)
	// Output:
	// new CA
	// none
	// new serving certificate
}
