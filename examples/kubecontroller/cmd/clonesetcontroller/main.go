// Command clonesetcontroller runs the reference CloneSet controller of
// package kubecontroller against a cluster: a controller-runtime manager
// watching CloneSets (apps.kruise.io, one API version) and the pods, claims
// and revisions they own, planning every round with the library and sending
// the requests it builds.
//
// Install the CloneSet CustomResourceDefinition first (config/manifests/),
// then:
//
//	clonesetcontroller --kubeconfig ~/.kube/config
//	clonesetcontroller --dry-run --namespace prod   # plans and logs, writes nothing
//
// Run it with -h for the flags. It stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/clonecore/cloneset/admission"
	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/webhook"
	"github.com/clonecore/cloneset/examples/kubecontroller/wiretrim"
	"github.com/clonecore/cloneset/model"
	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "clonesetcontroller:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "clonesetcontroller:", err)
		os.Exit(1)
	}
}

// errUsage marks the errors of a bad command line (exit status 2).
var errUsage = errors.New("usage")

// usageError is a bad command line.
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// options are the command line's settings.
type options struct {
	kubeconfig              string
	namespace               string
	cloneSetVersion         string
	workers                 int
	leaderElect             bool
	leaderElectionID        string
	leaderElectionNamespace string
	leaseDuration           time.Duration
	renewDeadline           time.Duration
	retryPeriod             time.Duration
	metricsBindAddress      string
	healthProbeBindAddress  string
	dryRun                  bool
	concurrentBatchCreates  bool
	maxConcurrentCreates    int
	serverVersion           string
	pprofBindAddress        string
	kubeAPIQPS              float64
	kubeAPIBurst            int
	kubeAPICompression      bool
	kubeAPIHTTP2            bool
	kubeAPIWatchHTTP2       bool
	directInformers         bool
	// gomaxprocs is the runtime.GOMAXPROCS the binary sets, 0 to leave
	// Go's (the GOMAXPROCS variable, else the CPUs or the container's
	// CPU limit).
	gomaxprocs int
	// featureGates are OpenKruise's feature gates, as its --feature-gates
	// takes them (a string, so that options stay comparable: parseGates
	// reads it).
	featureGates string
	webhooks     webhookOptions
}

// webhookOptions are the settings of the webhook server.
type webhookOptions struct {
	enabled         bool
	port            int
	bindHost        string
	certDir         string
	namespace       string
	serviceName     string
	secretName      string
	urlHost         string
	caValidity      time.Duration
	servingValidity time.Duration
}

// The defaults of the flags that have one.
const (
	defaultCloneSetVersion  = "v1beta1"
	defaultWorkers          = 1
	defaultLeaderElectionID = "clonesetcontroller.clonecore.github.io"
	// The leader-election timings of controller-runtime's defaults (and
	// kube-controller-manager's).
	defaultLeaseDuration  = 15 * time.Second
	defaultRenewDeadline  = 10 * time.Second
	defaultRetryPeriod    = 2 * time.Second
	defaultMetricsAddress = "0"
	defaultHealthAddress  = ":8081"
	// defaultGOMAXPROCS is one thread for Go code: the controller's
	// work comes as single watch events and writes, and with two a
	// second thread was woken for each and put back to sleep (the Go
	// scheduler's share of a rollout's CPU); a rollout of 1,000 pods cost
	// about a fifth less CPU with one than with two without a client-side
	// limit, a seventh less at QPS 30, and took no longer
	// (docs/performance.md).
	defaultGOMAXPROCS = 1
	// defaultMaxConcurrentCreates is enough creates in flight to keep an
	// API server busy, without a goroutine and the buffers of a request
	// for each pod of a batch (the batches double: 4,096 pods at once in
	// a scale-out from 0 to 10,000).
	defaultMaxConcurrentCreates = 32
)

// cloneSetKinds are the CloneSet versions --cloneset-version accepts.
var cloneSetKinds = map[string]schema.GroupVersionKind{
	"v1beta1":  kubecontroller.CloneSetV1beta1,
	"v1alpha1": kubecontroller.CloneSetV1alpha1,
}

// parseFlags reads the command line. -h prints the flags on stdout and
// returns flag.ErrHelp; a bad command line is an errUsage error.
func parseFlags(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("clonesetcontroller", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig (default: in-cluster, else $KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&o.namespace, "namespace", "", "watch the CloneSets of this namespace only (default: all namespaces)")
	fs.StringVar(&o.cloneSetVersion, "cloneset-version", defaultCloneSetVersion, "the CloneSet API version to read and write: v1beta1 or v1alpha1")
	fs.IntVar(&o.workers, "workers", defaultWorkers, "how many CloneSets to reconcile at once")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "run only while holding a leader-election Lease (for several replicas)")
	fs.StringVar(&o.leaderElectionID, "leader-election-id", defaultLeaderElectionID, "the name of the leader-election Lease")
	fs.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "the namespace of the leader-election Lease (default: the pod's own, in a cluster)")
	fs.DurationVar(&o.leaseDuration, "leader-election-lease-duration", defaultLeaseDuration, "how long a replica waits, after the leader's last renewal, before it takes the Lease")
	fs.DurationVar(&o.renewDeadline, "leader-election-renew-deadline", defaultRenewDeadline, "how long the leader keeps trying to renew the Lease before it stops leading (and exits)")
	fs.DurationVar(&o.retryPeriod, "leader-election-retry-period", defaultRetryPeriod, "how often the replicas try to take or renew the Lease")
	fs.StringVar(&o.metricsBindAddress, "metrics-bind-address", defaultMetricsAddress, `the address of the Prometheus metrics endpoint ("0" disables it), e.g. ":8080"`)
	fs.StringVar(&o.healthProbeBindAddress, "health-probe-bind-address", defaultHealthAddress, `the address of the /healthz and /readyz endpoints ("0" disables them)`)
	fs.BoolVar(&o.dryRun, "dry-run", false, "plan and log the requests of every round, send none (no write at all, status and events included)")
	fs.BoolVar(&o.concurrentBatchCreates, "concurrent-batch-creates", true, "send the creates of one slow-start batch (1, 2, 4, ... pods) concurrently, as OpenKruise does (false: one after the other)")
	fs.IntVar(&o.maxConcurrentCreates, "max-concurrent-creates", defaultMaxConcurrentCreates, "with --concurrent-batch-creates, how many pods of a batch are being created at once, at most (0: the whole batch at once, as OpenKruise; the batches double, 1, 2, 4, ... pods)")
	fs.StringVar(&o.serverVersion, "server-version", "", "the API server's version the requests are built for, e.g. v1.31.4 (default: read from the server at start)")
	fs.StringVar(&o.pprofBindAddress, "pprof-bind-address", "", `the address of the net/http/pprof endpoints (/debug/pprof/), e.g. "127.0.0.1:6060" (default: off)`)
	fs.Float64Var(&o.kubeAPIQPS, "kube-api-qps", 0, "the client's requests per second to the API server (default 0: no client-side rate limit, the API server's priority and fairness applies)")
	fs.IntVar(&o.kubeAPIBurst, "kube-api-burst", 0, "the client's burst above --kube-api-qps (default 0: client-go's, 10; needs --kube-api-qps)")
	fs.BoolVar(&o.kubeAPIHTTP2, "kube-api-http2", false, "send the writes, reads and discovery over HTTP/2, on one connection (default false: HTTP/1.1, a kept-alive connection per request in flight, which costs the controller about a seventh less CPU in a rollout; TCP keep-alives find a dead connection within 30 s, as HTTP/2's health checks do)")
	fs.IntVar(&o.gomaxprocs, "gomaxprocs", defaultGOMAXPROCS, "how many threads run the controller's Go code at once (runtime.GOMAXPROCS); 0: Go's default (the machine's CPUs or the container's CPU limit); when the flag is not given, a GOMAXPROCS environment variable is honoured instead of the default 1, with which a rollout cost about a fifth less CPU than with two (docs/performance.md)")
	fs.BoolVar(&o.directInformers, "direct-informers", true, "keep the cache with informers whose reflector stores each watch event and hands it to the controllers on its own goroutine (kubecontroller.NewDirectInformer); false: client-go's shared informers, which pass each event through a queue and two goroutines more")
	fs.BoolVar(&o.kubeAPIWatchHTTP2, "kube-api-watch-http2", false, "read the informers' lists and watches over HTTP/2, on one connection (default false: HTTP/1.1, a connection per watch read by its own goroutine, about a tenth of the controller's CPU less; TCP keep-alives as for --kube-api-http2)")
	fs.BoolVar(&o.kubeAPICompression, "kube-api-compression", false, "ask the API server for gzip-compressed responses and watch streams (default off: the controller runs next to its API server, where compressing every watch event costs both sides CPU and saves nothing)")
	w := &o.webhooks
	fs.BoolVar(&w.enabled, "enable-webhooks", true, "serve the CloneSet mutating, validating and conversion webhooks and the pod webhook (false: they are served elsewhere; default false with --dry-run)")
	fs.IntVar(&w.port, "webhook-port", webhook.DefaultPort, "the port the webhook server listens on")
	fs.StringVar(&w.bindHost, "webhook-bind-host", "", "the address the webhook server listens on (default: every address)")
	fs.StringVar(&w.certDir, "webhook-cert-dir", "", "a directory holding the serving certificate and key (tls.crt, tls.key), reloaded when they change; the issuer puts its CA in the webhook configurations and the CRD (default: the binary manages a CA and a serving certificate in a Secret and writes the CA there itself)")
	fs.StringVar(&w.namespace, "webhook-namespace", "", "the namespace of the webhook Service and of the Secret of the self-managed certificates (default: $POD_NAMESPACE, else the pod's own)")
	fs.StringVar(&w.serviceName, "webhook-service-name", webhook.DefaultServiceName, "the Service the API server reaches the webhooks through")
	fs.StringVar(&w.secretName, "webhook-secret-name", webhook.DefaultSecretName, "the Secret of the self-managed certificates")
	fs.StringVar(&w.urlHost, "webhook-url-host", "", `"host" or "host:port" the API server calls the webhooks at instead of the Service (a binary outside the cluster); the self-managed certificate is issued for that host`)
	fs.DurationVar(&w.caValidity, "webhook-ca-validity", webhook.DefaultCAValidity, "how long a self-managed CA is valid (renewed after two thirds)")
	fs.DurationVar(&w.servingValidity, "webhook-cert-validity", webhook.DefaultServingValidity, "how long a self-managed serving certificate is valid (renewed after two thirds)")
	fs.StringVar(&o.featureGates, "feature-gates", "", "OpenKruise's feature gates of the CloneSet controller and its webhooks, as its flag takes them, e.g. InPlaceWorkloadVerticalScaling=true,ResourcesDeletionProtection=true (default: OpenKruise's defaults)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(fs, stdout)
			return o, err
		}
		return o, usageError("%v", err)
	}
	if fs.NArg() > 0 {
		return o, usageError("unexpected argument %q (every setting is a flag; -h lists them)", fs.Arg(0))
	}
	if _, ok := cloneSetKinds[o.cloneSetVersion]; !ok {
		return o, usageError("--cloneset-version %q: want v1beta1 or v1alpha1", o.cloneSetVersion)
	}
	if o.maxConcurrentCreates < 0 {
		return o, usageError("--max-concurrent-creates %d: want 0 (no bound) or more", o.maxConcurrentCreates)
	}
	if o.gomaxprocs < 0 {
		return o, usageError("--gomaxprocs %d: want 0 (Go's default) or more", o.gomaxprocs)
	}
	if !flagGiven(fs, "gomaxprocs") && os.Getenv("GOMAXPROCS") != "" {
		o.gomaxprocs = 0 // the Go runtime has read the variable
	}
	if o.workers < 1 {
		return o, usageError("--workers %d: want 1 or more", o.workers)
	}
	if o.leaderElect && o.leaderElectionID == "" {
		return o, usageError("--leader-elect needs a --leader-election-id")
	}
	if o.leaseDuration <= o.renewDeadline || o.renewDeadline <= o.retryPeriod || o.retryPeriod <= 0 {
		return o, usageError("--leader-election-lease-duration %s, --leader-election-renew-deadline %s, --leader-election-retry-period %s: want lease duration > renew deadline > retry period > 0", o.leaseDuration, o.renewDeadline, o.retryPeriod)
	}
	if o.dryRun && o.leaderElect {
		return o, usageError("--dry-run and --leader-elect: a dry run writes nothing, a leader-election Lease included")
	}
	if o.kubeAPIQPS < 0 || o.kubeAPIQPS != o.kubeAPIQPS {
		return o, usageError("--kube-api-qps %v: want a rate of 0 (no client-side limit) or more", o.kubeAPIQPS)
	}
	if o.kubeAPIBurst < 0 {
		return o, usageError("--kube-api-burst %d: want 0 or more", o.kubeAPIBurst)
	}
	if o.kubeAPIBurst > 0 && o.kubeAPIQPS == 0 {
		return o, usageError("--kube-api-burst %d without --kube-api-qps: a burst is above a rate (give both, or neither for no client-side limit)", o.kubeAPIBurst)
	}
	if o.serverVersion != "" {
		if _, err := version.ParseGeneric(o.serverVersion); err != nil {
			return o, usageError("--server-version %q: want a Kubernetes version such as v1.31.4", o.serverVersion)
		}
	}
	if err := checkWebhookFlags(fs, &o); err != nil {
		return o, err
	}
	if _, _, err := parseGates(o.featureGates); err != nil {
		return o, usageError("--feature-gates: %v", err)
	}
	return o, nil
}

// flagGiven reports whether the command line gave the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// checkWebhookFlags checks the webhook flags, and turns the webhooks off in
// a dry run unless asked for.
func checkWebhookFlags(fs *flag.FlagSet, o *options) error {
	w := &o.webhooks
	if o.dryRun && !flagGiven(fs, "enable-webhooks") {
		w.enabled = false
	}
	if !w.enabled {
		return nil
	}
	if o.dryRun && w.certDir == "" {
		return usageError("--dry-run and --enable-webhooks: a dry run writes nothing, the self-managed certificates included; give --webhook-cert-dir")
	}
	if w.port < 1 || w.port > 65535 {
		return usageError("--webhook-port %d: want 1 to 65535", w.port)
	}
	if w.caValidity <= 0 || w.servingValidity <= 0 {
		return usageError("--webhook-ca-validity %s, --webhook-cert-validity %s: want both above 0", w.caValidity, w.servingValidity)
	}
	if w.serviceName == "" || w.secretName == "" {
		return usageError("--webhook-service-name and --webhook-secret-name must not be empty")
	}
	return nil
}

// parseGates reads OpenKruise's --feature-gates ("Name=true,Other=false"):
// the controller's gates (model.KnownFeatureGates) and the webhooks'
// (admission.ParseGates), each at OpenKruise's default when not named.
func parseGates(s string) (model.FeatureGates, admission.Gates, error) {
	controller := model.DefaultFeatureGates()
	var webhookParts []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, _ := strings.Cut(part, "=")
		if slices.Contains(model.KnownFeatureGates(), strings.TrimSpace(name)) {
			on, err := strconv.ParseBool(strings.TrimSpace(val))
			if err != nil {
				return controller, admission.Gates{}, fmt.Errorf("feature gate %q: want NAME=true or NAME=false", part)
			}
			if err := controller.Set(strings.TrimSpace(name), on); err != nil {
				return controller, admission.Gates{}, err
			}
			continue
		}
		webhookParts = append(webhookParts, part)
	}
	hooks, err := admission.ParseGates(strings.Join(webhookParts, ","))
	if err != nil {
		return controller, hooks, fmt.Errorf("%w; the controller's: %s", err, strings.Join(model.KnownFeatureGates(), ", "))
	}
	return controller, hooks, nil
}

func printUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, "Usage: clonesetcontroller [flags]")
	fmt.Fprintln(w, "\nRuns the reference CloneSet controller against a cluster. Flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// run is the command: it parses args, connects to the cluster, and runs the
// controller until ctx ends (nil then). Logs go to stderr; -h prints the
// flags on stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.gomaxprocs > 0 {
		goruntime.GOMAXPROCS(o.gomaxprocs)
	}
	logger := logr.FromSlogHandler(slog.NewTextHandler(stderr, nil))
	ctrl.SetLogger(logger)
	log := logger.WithName("clonesetcontroller")

	cfg, err := clientConfig(o)
	if err != nil {
		return err
	}
	dc, err := discoveryClient(cfg)
	if err != nil {
		return err
	}
	gvk := cloneSetKinds[o.cloneSetVersion]
	if err := checkServed(dc, gvk); err != nil {
		return err
	}
	serverVersion, source := o.serverVersion, "--server-version"
	if serverVersion == "" {
		if serverVersion, err = readServerVersion(dc); err != nil {
			return err
		}
		source = "the API server"
	}
	log.Info("starting", "apiServer", cfg.Host, "serverVersion", serverVersion, "serverVersionFrom", source,
		"cloneSetVersion", o.cloneSetVersion, "namespace", o.namespace, "workers", o.workers, "dryRun", o.dryRun, "leaderElect", o.leaderElect,
		"kubeAPIQPS", cfg.QPS, "kubeAPIBurst", cfg.Burst, "kubeAPICompression", o.kubeAPICompression,
		"kubeAPIHTTP2", o.kubeAPIHTTP2, "kubeAPIWatchHTTP2", o.kubeAPIWatchHTTP2, "directInformers", o.directInformers, "gomaxprocs", goruntime.GOMAXPROCS(0), "webhooks", o.webhooks.enabled, "featureGates", o.featureGates)

	controllerGates, webhookGates, _ := parseGates(o.featureGates) // checked by parseFlags
	var hooks *webhook.Server
	if o.webhooks.enabled {
		if hooks, err = newWebhookServer(cfg, o.webhooks, logger); err != nil {
			return err
		}
	}
	mgr, err := newManager(cfg, cacheClientConfig(cfg, o), o, logger, hooks)
	if err != nil {
		return err
	}
	if hooks != nil {
		rules := webhook.NewLibraryRules(mgr.GetAPIReader())
		rules.Gates = webhookGates
		if err := hooks.Setup(mgr, rules); err != nil {
			return fmt.Errorf("set up the webhooks: %w", err)
		}
	}
	var c client.Client = mgr.GetClient()
	// One handler on the pod informer for the three controllers of pods.
	podEvents := kubecontroller.NewPodEvents(mgr.GetCache())
	if o.dryRun {
		c = readOnlyClient{c}
	}
	r := &kubecontroller.Reconciler{
		Client:                  c,
		Gates:                   &controllerGates,
		CloneSetGVK:             gvk,
		ServerVersion:           serverVersion,
		DryRun:                  o.dryRun,
		ConcurrentBatches:       o.concurrentBatchCreates,
		MaxConcurrentCreates:    o.maxConcurrentCreates,
		MaxConcurrentReconciles: o.workers,
		PodEvents:               podEvents,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the controller: %w", err)
	}
	if !o.dryRun {
		// The KruisePodReady gate the pod webhook injects (here or
		// elsewhere) needs its first True.
		if err := (&kubecontroller.PodReadinessReconciler{Client: c, PodEvents: podEvents}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("set up the pod readiness reconciler: %w", err)
		}
		// The launch barriers the pod webhook injects (here or
		// elsewhere) need their keys, or the containers never start.
		if err := (&kubecontroller.LaunchPriorityReconciler{Client: c, Reader: mgr.GetAPIReader(), PodEvents: podEvents}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("set up the launch priority reconciler: %w", err)
		}
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("run the manager: %w", err)
	}
	log.Info("stopped")
	return nil
}

// restConfig loads the kubeconfig at path, or, when path is empty, the
// in-cluster configuration, else $KUBECONFIG, else ~/.kube/config (as
// controller-runtime finds it).
func restConfig(path string) (*rest.Config, error) {
	if path == "" {
		cfg, err := ctrl.GetConfig()
		if err != nil {
			return nil, fmt.Errorf("no cluster to talk to (not in a cluster, no $KUBECONFIG, no ~/.kube/config; or give --kubeconfig): %w", err)
		}
		return cfg, nil
	}
	loader := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loader, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", path, err)
	}
	return cfg, nil
}

// clientConfig is the client's configuration for every request but the
// informers' (cacheClientConfig): the cluster of restConfig, the rate limit
// of --kube-api-qps and --kube-api-burst, compression as
// --kube-api-compression says, HTTP/1.1 with http1KeepAlive unless
// --kube-api-http2. Over HTTP/2 the requests share one connection, whose
// read loop takes every answer and hands it to the request's goroutine,
// and each request's headers are encoded (HPACK) and framed on their own;
// over HTTP/1.1 a request has a connection to itself while it is in flight,
// taken from and put back in the transport's pool: a rollout's writes cost
// the controller about a seventh less CPU (docs/performance.md).
func clientConfig(o options) (*rest.Config, error) {
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return nil, err
	}
	setRateLimit(cfg, o.kubeAPIQPS, o.kubeAPIBurst)
	cfg.DisableCompression = !o.kubeAPICompression
	if !o.kubeAPIHTTP2 {
		useHTTP1(cfg)
	}
	return cfg, nil
}

// http1KeepAlive is how the client's connections over HTTP/1.1 find a dead
// API server: a connection idle for 15 s is probed every 5 s and closed
// after 3 probes go unanswered, 30 s after its last byte; a watch's
// reflector then lists and watches again, a write in flight fails and is
// sent again by the next round (over HTTP/2, client-go's health check pings
// a connection idle for 30 s and closes it 15 s later).
var http1KeepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}

// useHTTP1 makes cfg's client talk HTTP/1.1, its connections dialed with
// http1KeepAlive.
func useHTTP1(cfg *rest.Config) {
	cfg.NextProtos = []string{"http/1.1"}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAliveConfig: http1KeepAlive}
	cfg.Dial = dialer.DialContext
}

// cacheClientConfig is the configuration of the manager cache's client, the
// one the informers list and watch with: cfg's, the managedFields of the
// pods, claims, revisions and nodes dropped from the protobuf watch events
// and lists before client-go decodes them (wiretrim), over HTTP/1.1 with
// http1KeepAlive unless --kube-api-watch-http2 (a watch over HTTP/1.1 is
// read straight off its own connection by the watch's goroutine; over
// HTTP/2 every frame of every watch goes through the connection's read loop
// and is handed to the watch's goroutine, which measured about a tenth of
// the controller's CPU in a rollout). The protocol of the watches is chosen
// apart from the other requests' (--kube-api-http2).
func cacheClientConfig(cfg *rest.Config, o options) *rest.Config {
	c := rest.CopyConfig(cfg)
	// What TrimForCache drops after the decode is dropped before it.
	c.Wrap(wiretrim.WrapTransport)
	if o.kubeAPIWatchHTTP2 {
		c.NextProtos, c.Dial = nil, nil
	} else {
		useHTTP1(c)
	}
	return c
}

// setRateLimit sets the client's rate limit: qps requests per second with
// bursts of burst (client-go's default burst when 0), or none when qps is 0
// (QPS -1: the API server's priority and fairness applies, as with
// ctrl.GetConfig's default).
func setRateLimit(cfg *rest.Config, qps float64, burst int) {
	if qps == 0 {
		cfg.QPS, cfg.Burst = -1, 0
		return
	}
	cfg.QPS, cfg.Burst = float32(qps), burst
	if burst == 0 {
		cfg.Burst = rest.DefaultBurst
	}
}

// discoveryTimeout bounds each discovery request at start.
const discoveryTimeout = 30 * time.Second

// discoveryClient returns a client for the API server's discovery, whose
// requests time out after discoveryTimeout.
func discoveryClient(cfg *rest.Config) (*discovery.DiscoveryClient, error) {
	c := rest.CopyConfig(cfg)
	c.Timeout = discoveryTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("connect to the API server at %s: %w", cfg.Host, err)
	}
	return dc, nil
}

// readServerVersion asks the API server its version (GET /version), once.
func readServerVersion(dc discovery.ServerVersionInterface) (string, error) {
	info, err := dc.ServerVersion()
	if err != nil {
		return "", fmt.Errorf("read the API server's version (or give --server-version): %w", err)
	}
	if _, err := version.ParseGeneric(info.GitVersion); err != nil {
		return "", fmt.Errorf("the API server reports version %q, which does not parse (give --server-version): %w", info.GitVersion, err)
	}
	return info.GitVersion, nil
}

// checkServed fails when the API server does not serve the CloneSet kind
// (the CustomResourceDefinition is not installed, or lacks the version).
func checkServed(dc discovery.ServerResourcesInterface, gvk schema.GroupVersionKind) error {
	list, err := dc.ServerResourcesForGroupVersion(gvk.GroupVersion().String())
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("look up %s %s: %w", gvk.GroupVersion(), gvk.Kind, err)
	}
	if list != nil {
		for _, r := range list.APIResources {
			if r.Kind == gvk.Kind {
				return nil
			}
		}
	}
	return fmt.Errorf("the API server does not serve %s %s: install the CloneSet CustomResourceDefinition (kubectl apply -f config/manifests/)", gvk.GroupVersion(), gvk.Kind)
}

// skipNameValidation lets a second run in one process register the
// controller under the same name.
var skipNameValidation = true

// serviceAccountNamespace is where a pod finds its own namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// newWebhookServer builds the webhook server of o: certificates from
// o.certDir, or self-managed in the namespace of the flag, $POD_NAMESPACE
// or the pod's own.
func newWebhookServer(cfg *rest.Config, o webhookOptions, logger logr.Logger) (*webhook.Server, error) {
	ns := o.namespace
	if ns == "" {
		ns = os.Getenv("POD_NAMESPACE")
	}
	if ns == "" {
		if data, err := os.ReadFile(serviceAccountNamespace); err == nil {
			ns = strings.TrimSpace(string(data))
		}
	}
	if ns == "" && o.certDir == "" {
		return nil, errors.New("the self-managed webhook certificates need a namespace for their Secret: give --webhook-namespace (or $POD_NAMESPACE), or --webhook-cert-dir, or --enable-webhooks=false")
	}
	return webhook.NewServer(cfg, webhook.Options{
		Port: o.port, BindHost: o.bindHost, CertDir: o.certDir,
		Namespace: ns, ServiceName: o.serviceName, SecretName: o.secretName, URLHost: o.urlHost,
		CAValidity: o.caValidity, ServingValidity: o.servingValidity,
		Log: logger,
	})
}

// newManager builds the manager: the client's scheme, the cache (of one
// namespace, or all), metrics, health probes, leader election and the
// webhook server (when not nil); the cache lists and watches with cacheCfg.
func newManager(cfg, cacheCfg *rest.Config, o options, logger logr.Logger, hooks *webhook.Server) (ctrl.Manager, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	opts := ctrl.Options{
		Scheme:                        scheme,
		Logger:                        logger,
		Metrics:                       metricsserver.Options{BindAddress: o.metricsBindAddress},
		HealthProbeBindAddress:        o.healthProbeBindAddress,
		PprofBindAddress:              o.pprofBindAddress,
		LeaderElection:                o.leaderElect,
		LeaderElectionID:              o.leaderElectionID,
		LeaderElectionNamespace:       o.leaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &o.leaseDuration,
		RenewDeadline:                 &o.renewDeadline,
		RetryPeriod:                   &o.retryPeriod,
		// The CloneSet is read as an unstructured object: from the cache
		// too, like the pods (controller-runtime reads unstructured objects
		// from the API server unless told otherwise).
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		// run may run again in the same process (tests): the controller's
		// name is then taken already, and its metrics are the same ones.
		Controller: config.Controller{SkipNameValidation: &skipNameValidation},
	}
	// The informers keep of each object only what a reconcile reads.
	cacheClient, err := rest.HTTPClientFor(cacheCfg)
	if err != nil {
		return nil, fmt.Errorf("the client of the informers: %w", err)
	}
	opts.Cache = cache.Options{DefaultTransform: kubecontroller.TrimForCache, HTTPClient: cacheClient}
	if o.directInformers {
		opts.Cache.NewInformer = kubecontroller.NewDirectInformer
	}
	if o.namespace != "" {
		opts.Cache.DefaultNamespaces = map[string]cache.Config{o.namespace: {}}
	}
	if hooks != nil {
		opts.WebhookServer = hooks
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("create the manager: %w", err)
	}
	if o.healthProbeBindAddress != "0" {
		if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
			return nil, err
		}
		if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}
