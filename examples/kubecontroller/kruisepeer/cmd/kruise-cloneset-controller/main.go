// Command kruise-cloneset-controller runs OpenKruise v1.9.0's CloneSet
// controller, and only it, with kruise's defaults: the peer that the
// project's clonesetcontroller is measured against (docs/performance.md) and
// compared with.
//
// It starts a controller-runtime manager the way kruise-manager starts its
// own (kruise's scheme, its cache that can list without deep copies, its
// client registry, its controller finder and PodUnavailableBudget control,
// its default feature gates, the client rate limits kruise-manager sets by
// default: 30 requests per second, bursts of 50) and adds kruise's CloneSet
// controller to it. What kruise-manager does besides is left out: no
// webhook server and no webhook configuration, no other controller, no
// leader election; the field indexes are the two the CloneSet controller
// lists by (the owner UID of pods and of claims), so that the manager
// watches no kind the CloneSet controller does not read.
//
// It expects kruise's CustomResourceDefinitions: the CloneSet's, and
// ImagePullJob's (without it kruise's controller spends about 15 s at start
// retrying discovery before it turns image pre-download off). Both ship in
// kruise's module under config/crd/bases; see the module's README.
//
//	kruise-cloneset-controller --kubeconfig ~/.kube/config --kube-api-qps -1
//
// Flags:
//
//	--kubeconfig                 the cluster (default: $KUBECONFIG, in-cluster, ~/.kube/config)
//	--kube-api-qps               client requests per second (default 30, kruise's; -1: no client-side limit)
//	--kube-api-burst             client burst (default 50, kruise's)
//	--metrics-bind-address       Prometheus metrics, e.g. :8080 (default 0: off)
//	--health-probe-bind-address  /healthz and /readyz (default 0: off)
//	--pprof-bind-address         net/http/pprof, e.g. 127.0.0.1:6060 (default empty: off)
//	--cloneset-workers           kruise's own flag: CloneSets reconciled at once (default 3)
//	--feature-gates              kruise's feature gates, e.g. CloneSetShortHash=true (default: kruise's defaults)
//
// and klog's flags (-v ...). It stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	appsv1alpha1 "github.com/openkruise/kruise/apis/apps/v1alpha1"
	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
	policyv1alpha1 "github.com/openkruise/kruise/apis/policy/v1alpha1"
	policyv1beta1 "github.com/openkruise/kruise/apis/policy/v1beta1"
	kruiseclient "github.com/openkruise/kruise/pkg/client"
	"github.com/openkruise/kruise/pkg/control/pubcontrol"
	"github.com/openkruise/kruise/pkg/controller/cloneset"
	"github.com/openkruise/kruise/pkg/features"
	utilclient "github.com/openkruise/kruise/pkg/util/client"
	"github.com/openkruise/kruise/pkg/util/controllerfinder"
	utilfeature "github.com/openkruise/kruise/pkg/util/feature"
	"github.com/openkruise/kruise/pkg/util/fieldindex"
)

// Kruise-manager's defaults for its client (its flags --rest-config-qps and
// --rest-config-burst).
const (
	kruiseDefaultQPS   = 30
	kruiseDefaultBurst = 50
)

// options are the command line's settings.
type options struct {
	kubeconfig        string
	qps               float64
	burst             int
	metricsAddress    string
	healthAddress     string
	pprofAddress      string
	featureGates      string
	userAgent         string
	discoveryDeadline time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "kruise-cloneset-controller:", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line. Kruise's own flags that its packages
// register on flag.CommandLine at init (the CloneSet controller's
// --cloneset-workers) are offered too, and klog's.
func parseFlags(args []string, output io.Writer) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("kruise-cloneset-controller", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: $KUBECONFIG, the in-cluster config, ~/.kube/config)")
	fs.Float64Var(&o.qps, "kube-api-qps", kruiseDefaultQPS, "client requests per second to the API server (kruise-manager's default; a negative value: no client-side rate limit)")
	fs.IntVar(&o.burst, "kube-api-burst", kruiseDefaultBurst, "client burst to the API server (kruise-manager's default)")
	fs.StringVar(&o.metricsAddress, "metrics-bind-address", "0", "address of the Prometheus metrics endpoint, e.g. :8080 (0: off)")
	fs.StringVar(&o.healthAddress, "health-probe-bind-address", "0", "address of /healthz and /readyz (0: off)")
	fs.StringVar(&o.pprofAddress, "pprof-bind-address", "", "address of the net/http/pprof endpoints, e.g. 127.0.0.1:6060 (empty: off)")
	fs.StringVar(&o.featureGates, "feature-gates", "", "kruise feature gates, key=value pairs separated by commas (default: kruise's defaults)")
	fs.StringVar(&o.userAgent, "user-agent", "kruise-manager", "the client's user agent (kruise-manager's by default)")
	fs.DurationVar(&o.discoveryDeadline, "discovery-timeout", 30*time.Second, "how long to wait for the API server to serve CloneSets at start")
	if f := flag.CommandLine.Lookup("cloneset-workers"); f != nil {
		fs.Var(f.Value, f.Name, f.Usage)
	}
	klog.InitFlags(fs)
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.burst < 0 {
		return options{}, fmt.Errorf("--kube-api-burst %d: must not be negative", o.burst)
	}
	if o.qps == 0 {
		return options{}, errors.New("--kube-api-qps 0: give a positive rate, or a negative one for no client-side limit")
	}
	return o, nil
}

// restConfig loads the cluster's configuration and applies the client
// settings.
func restConfig(o options) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.kubeconfig != "" {
		rules.ExplicitPath = o.kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.QPS = float32(o.qps)
	cfg.Burst = o.burst
	cfg.UserAgent = o.userAgent
	return cfg, nil
}

// newScheme is kruise-manager's scheme: client-go's kinds, kruise's apps and
// policy kinds, and the option kinds as unversioned types. Kruise's packages
// also read client-go's global scheme, to which kruise-manager adds its apps
// kinds: so is it here.
func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(appsv1alpha1.AddToScheme(clientgoscheme.Scheme))
	utilruntime.Must(appsv1beta1.AddToScheme(clientgoscheme.Scheme))
	utilruntime.Must(appsv1alpha1.AddToScheme(s))
	utilruntime.Must(appsv1beta1.AddToScheme(s))
	utilruntime.Must(policyv1alpha1.AddToScheme(s))
	utilruntime.Must(policyv1beta1.AddToScheme(s))
	s.AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.UpdateOptions{}, &metav1.DeleteOptions{}, &metav1.CreateOptions{})
	return s
}

// ownerUIDs is the value of the index the CloneSet controller lists its pods
// and claims by (fieldindex.IndexNameForOwnerRefUID): every owner's UID.
func ownerUIDs(obj client.Object) []string {
	refs := obj.GetOwnerReferences()
	uids := make([]string, 0, len(refs))
	for _, ref := range refs {
		uids = append(uids, string(ref.UID))
	}
	return uids
}

// waitForCloneSets returns once the API server serves
// apps.kruise.io/v1beta1 CloneSets, or an error naming what to install.
func waitForCloneSets(ctx context.Context, deadline time.Duration) error {
	disc := kruiseclient.GetGenericClient().DiscoveryClient
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	var last error
	for {
		list, err := disc.ServerResourcesForGroupVersion(appsv1beta1.SchemeGroupVersion.String())
		if err == nil {
			for _, r := range list.APIResources {
				if r.Kind == "CloneSet" {
					return nil
				}
			}
			err = errors.New("no CloneSet kind in the group version")
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("the API server does not serve apps.kruise.io/v1beta1 CloneSets (%v): install kruise's CustomResourceDefinitions (config/crd/bases of github.com/openkruise/kruise@v1.9.0)", last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// servePprof serves net/http/pprof on address until ctx ends.
func servePprof(ctx context.Context, address string) error {
	ln, err := net.Listen("tcp", address)
	if err != nil {
		return fmt.Errorf("--pprof-bind-address: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "pprof server stopped")
		}
	}()
	klog.InfoS("serving pprof", "address", ln.Addr().String())
	return nil
}

// run starts the manager with kruise's CloneSet controller and returns when
// ctx ends (nil) or the manager fails.
func run(ctx context.Context, args []string, output io.Writer) error {
	o, err := parseFlags(args, output)
	if err != nil {
		return err
	}
	ctrl.SetLogger(klog.NewKlogr())
	if o.featureGates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(o.featureGates); err != nil {
			return fmt.Errorf("--feature-gates: %w", err)
		}
	}
	features.SetDefaultFeatureGates()

	cfg, err := restConfig(o)
	if err != nil {
		return err
	}
	if err := kruiseclient.NewRegistry(cfg); err != nil {
		return fmt.Errorf("kruise's client registry: %w", err)
	}
	if err := waitForCloneSets(ctx, o.discoveryDeadline); err != nil {
		return err
	}
	if o.pprofAddress != "" {
		if err := servePprof(ctx, o.pprofAddress); err != nil {
			return err
		}
	}

	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme:                 newScheme(),
		Metrics:                metricsserver.Options{BindAddress: o.metricsAddress},
		HealthProbeBindAddress: o.healthAddress,
		NewCache:               utilclient.NewCache,
	})
	if err != nil {
		return fmt.Errorf("the manager: %w", err)
	}
	if err := controllerfinder.InitControllerFinder(mgr); err != nil {
		return fmt.Errorf("kruise's controller finder: %w", err)
	}
	pubcontrol.InitPubControl(mgr.GetClient(), controllerfinder.Finder, mgr.GetEventRecorderFor("pub-controller"))
	for _, obj := range []client.Object{&corev1.Pod{}, &corev1.PersistentVolumeClaim{}} {
		if err := mgr.GetFieldIndexer().IndexField(ctx, obj, fieldindex.IndexNameForOwnerRefUID, ownerUIDs); err != nil {
			return fmt.Errorf("the owner index of %T: %w", obj, err)
		}
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := cloneset.Add(mgr); err != nil {
		return fmt.Errorf("kruise's CloneSet controller: %w", err)
	}
	klog.InfoS("starting kruise's CloneSet controller", "kruise", "v1.9.0", "qps", cfg.QPS, "burst", cfg.Burst)
	return mgr.Start(ctx)
}
