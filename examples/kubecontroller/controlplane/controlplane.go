package controlplane

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Component names one process of the control plane.
type Component string

// The components, in start order.
const (
	Etcd              Component = "etcd"
	APIServer         Component = "kube-apiserver"
	ControllerManager Component = "kube-controller-manager"
	Scheduler         Component = "kube-scheduler"
	Kwok              Component = "kwok"
)

// components is the start order; Stop goes the other way.
var components = []Component{Etcd, APIServer, ControllerManager, Scheduler, Kwok}

// Users the components authenticate as (client certificates of the control
// plane's CA, all in system:masters): the audit log tells their writes from
// a test's.
const (
	AdminUser             = "admin"
	SchedulerUser         = "system:kube-scheduler"
	ControllerManagerUser = "system:kube-controller-manager"
	KwokUser              = "kwok-controller"
)

// MastersGroup is the group RBAC lets do anything.
const MastersGroup = "system:masters"

// ServiceClusterIPRange is the API server's --service-cluster-ip-range.
const ServiceClusterIPRange = "10.0.0.0/24"

// PodCIDR is the range kwok gives pod IPs from (--cidr).
const PodCIDR = "10.244.0.0/16"

// Options configure a control plane. The zero value runs every component
// with no node.
type Options struct {
	// Nodes is how many kwok nodes to create: kwok-node-0, kwok-node-1, ...,
	// spread round-robin over Zones zones. Each is labelled with
	// kubernetes.io/hostname (its name) and topology.kubernetes.io/zone, and
	// has the capacity of DefaultNodeCapacity. More nodes can be added
	// later with CreateNode.
	Nodes int
	// Zones is how many zones the nodes are spread over (zone-a, zone-b,
	// ...); 0 means 1.
	Zones int
	// AuditPolicy, when not empty, is an audit.k8s.io/v1 Policy document
	// (YAML): the API server then runs with --audit-policy-file and
	// --audit-log-path (JSON lines, blocking mode) in the control plane's
	// directory, and AuditEvents reads the log back. AuditPolicyWrites is
	// one.
	AuditPolicy string
	// APIServerFlags are added after the API server's own flags, for
	// example "--max-mutating-requests-inflight=1" (a flag given twice takes
	// its last value).
	APIServerFlags []string
	// WithoutScheduler, WithoutControllerManager and WithoutKwok leave a
	// component out. Without kube-controller-manager nodes keep their
	// not-ready taint (nothing schedules) and namespaces get no default
	// service account (pods are refused); without kwok nodes never become
	// Ready and pods never run.
	WithoutScheduler         bool
	WithoutControllerManager bool
	WithoutKwok              bool
	// Stages are kwok Stage documents (YAML) added to the built-in ones
	// (Stages). kwok picks one stage at random among those matching an
	// object, so an extra stage should select objects the built-in stages
	// do not (for example by a label of its own and a pod the built-in
	// stages leave alone).
	Stages []string
	// ImageAliases are tags that name the same image as another tag, as a
	// registry has them (nginx's mainline-alpine and alpine, say): the
	// kubelet stage reports, for a container of an image listed here, the
	// imageID of the image it maps to. Both sides are images as the runtime
	// reports them (with a tag, or a digest).
	ImageAliases map[string]string
	// LogDir, when set, receives the components' logs (<component>.log,
	// appended to across restarts); it outlives the control plane. By
	// default the logs are in Dir()/logs and removed by Stop.
	LogDir string
	// BinDir is the directory of the binaries; Binaries(ctx) when empty.
	BinDir string
	// StartTimeout bounds the wait for each component to become ready;
	// 2 minutes when zero.
	StartTimeout time.Duration
	// Progress, when set, receives a line per step of Start and Stop with
	// its duration.
	Progress io.Writer
}

// ControlPlane is a running control plane: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok as processes of this
// program, with their files in a directory of their own. Its methods are
// safe for concurrent use.
type ControlPlane struct {
	opts       Options
	dir        string
	logDir     string
	binDir     string
	pki        *pki
	ports      map[Component]int
	etcdPeer   int
	config     *rest.Config
	kubeconfig string
	clientset  *kubernetes.Clientset
	version    VersionInfo

	mu        sync.Mutex
	procs     map[Component]*Process
	extra     []*Process
	nodes     []string
	nodeIndex int // the next node's index, for its address
	stopped   bool
}

// VersionInfo is the API server's /version.
type VersionInfo struct {
	Major      string `json:"major"`
	Minor      string `json:"minor"`
	GitVersion string `json:"gitVersion"`
	GitCommit  string `json:"gitCommit"`
	BuildDate  string `json:"buildDate"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

// Start builds (when missing) and starts a control plane and waits until it
// is usable: etcd healthy, the API server ready, kube-controller-manager and
// kube-scheduler healthy, the default service account in namespace default,
// and every node Ready with no not-ready taint (each wait only when the
// components it needs run). On error everything started is stopped and its
// directory removed; the error names the component that did not come up,
// with the tail of its log.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	if opts.Zones <= 0 {
		opts.Zones = 1
	}
	if opts.Nodes < 0 {
		return nil, fmt.Errorf("controlplane: Options.Nodes is %d, want 0 or more", opts.Nodes)
	}
	if err := validateAliases(opts.ImageAliases); err != nil {
		return nil, err
	}
	binDir := opts.BinDir
	if binDir == "" {
		if binDir, err = Binaries(ctx); err != nil {
			return nil, err
		}
	} else if missing := missingBinaries(binDir); len(missing) > 0 {
		return nil, fmt.Errorf("controlplane: Options.BinDir %s lacks %s", binDir, strings.Join(missing, ", "))
	}
	dir, err := os.MkdirTemp("", "cloneset-controlplane-")
	if err != nil {
		return nil, fmt.Errorf("controlplane: %w", err)
	}
	cp := &ControlPlane{opts: opts, dir: dir, binDir: binDir, logDir: opts.LogDir, procs: map[Component]*Process{}}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()
	step := cp.stepTimer()
	if cp.logDir == "" {
		cp.logDir = filepath.Join(dir, "logs")
	}
	if err := os.MkdirAll(cp.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("controlplane: log directory: %w", err)
	}
	if err := cp.prepare(); err != nil {
		return nil, err
	}
	step("files")
	if err := cp.StartComponent(ctx, Etcd); err != nil {
		return nil, err
	}
	step("etcd")
	if err := cp.StartComponent(ctx, APIServer); err != nil {
		return nil, err
	}
	step("kube-apiserver")
	if err := cp.readVersion(ctx); err != nil {
		return nil, err
	}
	for _, c := range []Component{ControllerManager, Scheduler, Kwok} {
		if cp.enabled(c) {
			if err := cp.startProcess(c); err != nil {
				return nil, err
			}
		}
	}
	for i := 0; i < opts.Nodes; i++ {
		if err := cp.CreateNode(ctx, Node{Name: fmt.Sprintf("kwok-node-%d", i), Zone: ZoneName(i % opts.Zones)}); err != nil {
			return nil, err
		}
	}
	step("nodes created")
	for _, c := range []Component{ControllerManager, Scheduler} {
		if cp.enabled(c) {
			if err := cp.waitReady(ctx, c); err != nil {
				return nil, err
			}
		}
	}
	step("kube-controller-manager, kube-scheduler")
	if cp.enabled(ControllerManager) {
		if err := cp.waitFor(ctx, ControllerManager, "the default service account in namespace default", func(ctx context.Context) error {
			return cp.defaultServiceAccount(ctx, metav1.NamespaceDefault)
		}); err != nil {
			return nil, err
		}
	}
	step("default service account")
	if cp.enabled(Kwok) {
		untainted := cp.enabled(ControllerManager)
		if err := cp.waitFor(ctx, Kwok, "every node Ready", func(ctx context.Context) error { return cp.nodesReady(ctx, untainted) }); err != nil {
			return nil, err
		}
	}
	step("nodes ready")
	return cp, nil
}

// stepTimer returns a function that reports a step of Start to
// Options.Progress with the time since the previous step.
func (cp *ControlPlane) stepTimer() func(string) {
	last := time.Now()
	return func(name string) {
		if cp.opts.Progress != nil {
			fmt.Fprintf(cp.opts.Progress, "controlplane: %s in %s\n", name, time.Since(last).Round(time.Millisecond))
		}
		last = time.Now()
	}
}

// enabled reports whether c runs in this control plane.
func (cp *ControlPlane) enabled(c Component) bool {
	switch c {
	case Scheduler:
		return !cp.opts.WithoutScheduler
	case ControllerManager:
		return !cp.opts.WithoutControllerManager
	case Kwok:
		return !cp.opts.WithoutKwok
	}
	return true
}

// prepare picks the ports and writes the certificates, keys, kubeconfigs,
// audit policy and kwok configuration.
func (cp *ControlPlane) prepare() error {
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	cp.ports = map[Component]int{Etcd: ports[0], APIServer: ports[1], ControllerManager: ports[2], Scheduler: ports[3]}
	cp.etcdPeer = ports[4]
	_, serviceNet, err := net.ParseCIDR(ServiceClusterIPRange)
	if err != nil {
		return err
	}
	serviceIP := slices.Clone(serviceNet.IP.To4())
	serviceIP[3]++
	if cp.pki, err = newPKI(filepath.Join(cp.dir, "pki"), serviceIP); err != nil {
		return fmt.Errorf("controlplane: certificates: %w", err)
	}
	if cp.config, err = cp.UserConfig(AdminUser, MastersGroup); err != nil {
		return err
	}
	cp.kubeconfig = filepath.Join(cp.dir, "admin.kubeconfig")
	if err := WriteKubeconfig(cp.kubeconfig, cp.config, AdminUser); err != nil {
		return err
	}
	for _, u := range []struct {
		file, user string
	}{{"kube-scheduler.kubeconfig", SchedulerUser}, {"kube-controller-manager.kubeconfig", ControllerManagerUser}, {"kwok.kubeconfig", KwokUser}} {
		cfg, err := cp.UserConfig(u.user, MastersGroup)
		if err != nil {
			return err
		}
		if err := WriteKubeconfig(filepath.Join(cp.dir, u.file), cfg, u.user); err != nil {
			return err
		}
	}
	if cp.opts.AuditPolicy != "" {
		if err := os.WriteFile(filepath.Join(cp.dir, "audit-policy.yaml"), []byte(cp.opts.AuditPolicy), 0o644); err != nil {
			return fmt.Errorf("controlplane: audit policy: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(cp.dir, "kwok.yaml"), []byte(kwokConfig(cp.opts.Stages, cp.opts.ImageAliases)), 0o644); err != nil {
		return fmt.Errorf("controlplane: kwok configuration: %w", err)
	}
	return nil
}

// freePorts returns n distinct loopback ports free at the time of the
// call. They are taken below the kernel's ephemeral port range when there is
// room: a component binds its port seconds after it was picked (the
// scheduler and controller manager bind after the API server is ready), and
// in between any outgoing connection of any process could otherwise get
// the same number as its local port.
func freePorts(n int) ([]int, error) {
	low, high := 10000, ephemeralPortsStart()-1
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for tries := 0; len(ports) < n; tries++ {
		addr := "127.0.0.1:0"
		if high-low > 1000 && tries < 100*n {
			addr = "127.0.0.1:" + strconv.Itoa(low+rand.IntN(high-low+1))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			if addr != "127.0.0.1:0" {
				continue // taken: try another one
			}
			return nil, fmt.Errorf("controlplane: free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// ephemeralPortsStart is the first port of the kernel's ephemeral range
// (32768 when it cannot be read).
func ephemeralPortsStart() int {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return 32768
	}
	start, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return start
}

// args is the command line of c.
func (cp *ControlPlane) args(c Component) []string {
	d := func(parts ...string) string { return filepath.Join(append([]string{cp.dir}, parts...)...) }
	port := func(c Component) string { return strconv.Itoa(cp.ports[c]) }
	etcdURL := "http://127.0.0.1:" + port(Etcd)
	switch c {
	case Etcd:
		peer := "http://127.0.0.1:" + strconv.Itoa(cp.etcdPeer)
		return []string{
			"--name=controlplane",
			"--data-dir=" + d("etcd"),
			"--listen-client-urls=" + etcdURL,
			"--advertise-client-urls=" + etcdURL,
			"--listen-peer-urls=" + peer,
			"--initial-advertise-peer-urls=" + peer,
			"--initial-cluster=controlplane=" + peer,
			// Data survives a stopped process (the page cache keeps it),
			// not a crash of the machine: enough for tests, much faster.
			"--unsafe-no-fsync=true",
			"--log-level=warn",
		}
	case APIServer:
		args := []string{
			"--etcd-servers=" + etcdURL,
			"--bind-address=127.0.0.1",
			"--advertise-address=127.0.0.1",
			// A loopback address cannot be the kubernetes service's
			// endpoint: it gets none.
			"--endpoint-reconciler-type=none",
			"--secure-port=" + port(APIServer),
			"--cert-dir=" + d("pki", "apiserver"),
			"--tls-cert-file=" + cp.pki.path(servingCertFile),
			"--tls-private-key-file=" + cp.pki.path(servingKeyFile),
			"--client-ca-file=" + cp.pki.path(caCertFile),
			"--service-account-key-file=" + cp.pki.path(serviceAccountPub),
			"--service-account-signing-key-file=" + cp.pki.path(serviceAccountKey),
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--service-cluster-ip-range=" + ServiceClusterIPRange,
			"--authorization-mode=RBAC",
			"--allow-privileged=true",
			"--profiling=false",
			// On SIGTERM: drain the requests in flight (new ones get 429
			// with Retry-After), then close the watches within 2 s, rather
			// than wait up to the 60 s request timeout for every watch.
			"--shutdown-send-retry-after=true",
		}
		if cp.opts.AuditPolicy != "" {
			args = append(args,
				"--audit-policy-file="+d("audit-policy.yaml"),
				"--audit-log-path="+cp.AuditLogPath(),
				"--audit-log-format=json",
				"--audit-log-mode=blocking",
				// One file, never rotated: with the default (0) the log
				// rotates at 100 MB, which a rollout of 10,000 pods writes
				// in minutes, and AuditEvents reads audit.log alone.
				"--audit-log-maxsize=1000000",
			)
		}
		return append(args, cp.opts.APIServerFlags...)
	case ControllerManager:
		return append(cp.componentFlags(c, "kube-controller-manager.kubeconfig"),
			"--service-account-private-key-file="+cp.pki.path(serviceAccountKey),
			"--root-ca-file="+cp.pki.path(caCertFile),
			"--cluster-signing-cert-file="+cp.pki.path(caCertFile),
			"--cluster-signing-key-file="+cp.pki.path(caKeyFile),
			"--use-service-account-credentials=false",
			"--controllers=*",
			"--node-monitor-period=1s",
			// A kwok node is lost only when kwok, one process of this
			// machine, cannot send its heartbeat (the heartbeat stage; kwok
			// renews no lease here): on a loaded machine that is
			// the machine, not a node failure, and the node lifecycle
			// controller would mark every pod of the node not Ready (a
			// rollout's ready count would fall for no reason of the
			// controller's). Five minutes instead of 50 s.
			"--node-monitor-grace-period="+nodeMonitorGracePeriod.String(),
		)
	case Scheduler:
		return cp.componentFlags(c, "kube-scheduler.kubeconfig")
	case Kwok:
		return []string{
			"--kubeconfig=" + d("kwok.kubeconfig"),
			"--config=" + d("kwok.yaml"),
			"--manage-all-nodes=false",
			"--manage-nodes-with-annotation-selector=" + NodeAnnotation + "=fake",
			"--cidr=" + PodCIDR,
			"--node-ip=10.255.255.254",
		}
	}
	return nil
}

// nodeMonitorGracePeriod is how long kube-controller-manager waits for a
// node's heartbeat (the heartbeat stage's status patch) before it marks the
// node and its pods not Ready.
const nodeMonitorGracePeriod = 5 * time.Minute

// componentFlags are the flags kube-controller-manager and kube-scheduler
// share: their kubeconfig (file in the control plane's directory) for the
// API and for delegated authentication and authorization, no leader
// election, HTTPS on their port of 127.0.0.1 with a self-signed
// certificate in a directory of their own, a client rate limit for
// hundreds of pods.
func (cp *ControlPlane) componentFlags(c Component, kubeconfigFile string) []string {
	kubeconfig := filepath.Join(cp.dir, kubeconfigFile)
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(cp.ports[c]),
		"--cert-dir=" + filepath.Join(cp.dir, string(c)),
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--profiling=false",
	}
}

// startProcess starts c without waiting for it.
func (cp *ControlPlane) startProcess(c Component) error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return errors.New("controlplane: stopped")
	}
	if p := cp.procs[c]; p != nil && !p.Exited() {
		return fmt.Errorf("controlplane: %s is running already", c)
	}
	p, err := startProcess(string(c), cp.LogPath(c), nil, filepath.Join(cp.binDir, string(c)), cp.args(c)...)
	if err != nil {
		return err
	}
	cp.procs[c] = p
	return nil
}

// StartComponent starts c again after StopComponent, with the same flags,
// ports and data, and waits until it is ready (etcd healthy, the API server
// ready, the scheduler and controller manager healthy; kwok is not waited
// for).
func (cp *ControlPlane) StartComponent(ctx context.Context, c Component) error {
	if !cp.enabled(c) {
		return fmt.Errorf("controlplane: %s is left out of this control plane", c)
	}
	if err := cp.startProcess(c); err != nil {
		return err
	}
	return cp.waitReady(ctx, c)
}

// etcdStopGrace is how long etcd gets to stop after SIGTERM: it waits for
// open watch streams (the API server's) up to its request timeout, about
// 7 seconds, before it exits.
const etcdStopGrace = 15 * time.Second

// StopComponent stops c (SIGTERM, SIGKILL after DefaultStopGrace; etcd gets
// 15 s, as it takes about 7 s to close the API server's watch streams) and
// waits for it to exit. Its data and ports are kept for StartComponent.
func (cp *ControlPlane) StopComponent(c Component) error {
	p, err := cp.started(c)
	if err != nil {
		return err
	}
	if c == Etcd {
		return p.StopWithin(etcdStopGrace)
	}
	return p.Stop()
}

// KillComponent kills c with SIGKILL and waits for it to exit; its data
// and ports are kept for StartComponent.
func (cp *ControlPlane) KillComponent(c Component) error {
	p, err := cp.started(c)
	if err != nil {
		return err
	}
	return p.Kill()
}

// started is the last process of c (an error when c never started).
func (cp *ControlPlane) started(c Component) (*Process, error) {
	if p := cp.Process(c); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("controlplane: %s was never started", c)
}

// StopAPIServer stops kube-apiserver (StopComponent); etcd keeps the data.
func (cp *ControlPlane) StopAPIServer() error { return cp.StopComponent(APIServer) }

// StartAPIServer starts kube-apiserver again and waits for /readyz.
func (cp *ControlPlane) StartAPIServer(ctx context.Context) error {
	return cp.StartComponent(ctx, APIServer)
}

// StopEtcd stops etcd (StopComponent); its data directory is kept.
func (cp *ControlPlane) StopEtcd() error { return cp.StopComponent(Etcd) }

// StartEtcd starts etcd again on the same data directory and ports and
// waits until it is healthy.
func (cp *ControlPlane) StartEtcd(ctx context.Context) error {
	return cp.StartComponent(ctx, Etcd)
}

// StartProcess runs another program under the control plane's process
// hygiene (own process group, killed when this program dies, stopped by
// Stop): its output goes to <log dir>/<name>.log and its environment has
// KUBECONFIG set to the admin kubeconfig. Stop the process with its Stop or
// Kill; the control plane's Stop stops any still running.
func (cp *ControlPlane) StartProcess(name, path string, args ...string) (*Process, error) {
	return cp.StartProcessEnv(name, []string{"KUBECONFIG=" + cp.kubeconfig}, path, args...)
}

// StartProcessEnv is StartProcess with the environment variables env
// added to the test's instead of KUBECONFIG (the test's own KUBECONFIG is
// never passed on): a program that must not find the admin kubeconfig,
// one run with credentials of its own.
func (cp *ControlPlane) StartProcessEnv(name string, env []string, path string, args ...string) (*Process, error) {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("controlplane: StartProcess: name %q must be a non-empty file name", name)
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		return nil, errors.New("controlplane: stopped")
	}
	p, err := startProcess(name, filepath.Join(cp.logDir, name+".log"), env, path, args...)
	if err != nil {
		return nil, err
	}
	cp.extra = append(cp.extra, p)
	return p, nil
}

// Stop stops every process (the ones of StartProcess first, then kwok,
// the scheduler, the controller manager, the API server and etcd), each with
// SIGTERM and SIGKILL after a few seconds, and removes the control plane's
// directory (Options.LogDir is kept). Calling it again does nothing.
func (cp *ControlPlane) Stop() error {
	cp.mu.Lock()
	if cp.stopped {
		cp.mu.Unlock()
		return nil
	}
	cp.stopped = true
	extra := cp.extra
	procs := cp.procs
	cp.mu.Unlock()
	step := cp.stepTimer()
	// Clients first (together), then the API server, then etcd: nothing
	// then retries against a server already gone for long.
	stopAll := func(ps []*Process) {
		var wg sync.WaitGroup
		for _, p := range ps {
			if p != nil {
				wg.Go(func() { p.Stop() })
			}
		}
		wg.Wait()
	}
	stopAll(append(extra, procs[Kwok], procs[Scheduler], procs[ControllerManager]))
	stopAll([]*Process{procs[APIServer]})
	stopAll([]*Process{procs[Etcd]})
	step("stopped")
	if err := os.RemoveAll(cp.dir); err != nil {
		return fmt.Errorf("controlplane: remove %s: %w", cp.dir, err)
	}
	return nil
}

// waitReady waits until c answers its health check.
func (cp *ControlPlane) waitReady(ctx context.Context, c Component) error {
	switch c {
	case Etcd:
		return cp.waitFor(ctx, c, "/health", func(ctx context.Context) error {
			body, err := cp.get(ctx, &http.Client{Timeout: 2 * time.Second}, "http://127.0.0.1:"+strconv.Itoa(cp.ports[Etcd])+"/health")
			if err == nil && !strings.Contains(body, `"health":"true"`) {
				err = fmt.Errorf("unhealthy: %s", body)
			}
			return err
		})
	case APIServer:
		hc, err := rest.HTTPClientFor(cp.config)
		if err != nil {
			return err
		}
		hc.Timeout = 5 * time.Second
		return cp.waitFor(ctx, c, "/readyz", func(ctx context.Context) error {
			_, err := cp.get(ctx, hc, cp.config.Host+"/readyz")
			return err
		})
	case Scheduler, ControllerManager:
		// Their serving certificates are self-signed in their --cert-dir:
		// only liveness is checked here, not identity.
		hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		return cp.waitFor(ctx, c, "/healthz", func(ctx context.Context) error {
			_, err := cp.get(ctx, hc, "https://127.0.0.1:"+strconv.Itoa(cp.ports[c])+"/healthz")
			return err
		})
	}
	return nil
}

// get fetches url and fails on a status other than 200.
func (cp *ControlPlane) get(ctx context.Context, hc *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s: %s", url, resp.Status, tail(string(body), 10))
	}
	return string(body), nil
}

// waitFor polls check until it succeeds, c exits, ctx ends or
// Options.StartTimeout passes; the error names c and what was waited for,
// with the tail of c's log.
func (cp *ControlPlane) waitFor(ctx context.Context, c Component, what string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, cp.opts.StartTimeout)
	defer cancel()
	cp.mu.Lock()
	p := cp.procs[c]
	cp.mu.Unlock()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		var exited <-chan struct{}
		if p != nil {
			exited = p.Done()
		}
		select {
		case <-exited:
			return fmt.Errorf("controlplane: %s exited while waiting for %s: %v\n%s", c, what, p.Wait(), cp.logSection(c))
		case <-ctx.Done():
			return fmt.Errorf("controlplane: %s: no %s after %s: %v\n%s", c, what, cp.opts.StartTimeout, err, cp.logSection(c))
		case <-tick.C:
		}
	}
}

// logSection is the tail of c's log under a heading.
func (cp *ControlPlane) logSection(c Component) string {
	return fmt.Sprintf("--- %s log (%s), last lines:\n%s", c, cp.LogPath(c), fileTail(cp.LogPath(c), 30))
}

// readVersion reads /version.
func (cp *ControlPlane) readVersion(ctx context.Context) error {
	hc, err := rest.HTTPClientFor(cp.config)
	if err != nil {
		return err
	}
	body, err := cp.get(ctx, hc, cp.config.Host+"/version")
	if err != nil {
		return fmt.Errorf("controlplane: kube-apiserver /version: %w", err)
	}
	if err := json.Unmarshal([]byte(body), &cp.version); err != nil {
		return fmt.Errorf("controlplane: kube-apiserver /version: %w", err)
	}
	cp.clientset, err = kubernetes.NewForConfig(cp.config)
	return err
}

// Dir is the control plane's directory (certificates, kubeconfigs, etcd's
// data, the audit log, the logs unless Options.LogDir is set). Stop
// removes it.
func (cp *ControlPlane) Dir() string { return cp.dir }

// Config returns a copy of the admin's client configuration (user admin in
// system:masters; client-side rate limiting off).
func (cp *ControlPlane) Config() *rest.Config { return rest.CopyConfig(cp.config) }

// KubeconfigPath is the admin's kubeconfig file.
func (cp *ControlPlane) KubeconfigPath() string { return cp.kubeconfig }

// Clientset is a client-go clientset for the admin.
func (cp *ControlPlane) Clientset() *kubernetes.Clientset { return cp.clientset }

// Client returns a controller-runtime client for the admin with scheme
// (client-go's scheme of the built-in types when nil).
func (cp *ControlPlane) Client(scheme *runtime.Scheme) (client.Client, error) {
	if scheme == nil {
		scheme = clientgoscheme.Scheme
	}
	return client.New(cp.Config(), client.Options{Scheme: scheme})
}

// Version is the API server's /version as read at start.
func (cp *ControlPlane) Version() VersionInfo { return cp.version }

// ServerURL is the API server's address (https://127.0.0.1:<port>).
func (cp *ControlPlane) ServerURL() string { return cp.config.Host }

// LogDir is the directory of the logs (Options.LogDir, else Dir()/logs).
func (cp *ControlPlane) LogDir() string { return cp.logDir }

// LogPath is the log file of c (or of a process of StartProcess named c).
func (cp *ControlPlane) LogPath(c Component) string {
	return filepath.Join(cp.logDir, string(c)+".log")
}

// LogTails returns the last lines of every log of the control plane's log
// directory (the components', then StartProcess's), each under a heading:
// what a failed test prints.
func (cp *ControlPlane) LogTails(lines int) string {
	return logTails(cp.logDir, lines)
}

// logTails returns the last lines of every *.log file of dir, the
// components' first in start order, then the others by name.
func logTails(dir string, lines int) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	rank := func(path string) int {
		if i := slices.Index(components, Component(strings.TrimSuffix(filepath.Base(path), ".log"))); i >= 0 {
			return i
		}
		return len(components)
	}
	slices.SortStableFunc(files, func(a, b string) int { return cmp.Or(rank(a)-rank(b), strings.Compare(a, b)) })
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "--- %s, last %d lines:\n%s\n", f, lines, fileTail(f, lines))
	}
	return b.String()
}

// Process returns the running process of c (nil when it never started).
func (cp *ControlPlane) Process(c Component) *Process {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.procs[c]
}

// UserConfig returns a client configuration for user in groups,
// authenticated by a client certificate of the control plane's CA (with
// group system:masters RBAC allows everything; without it, the user has
// what RBAC bindings grant). Client-side rate limiting is off (QPS -1).
func (cp *ControlPlane) UserConfig(user string, groups ...string) (*rest.Config, error) {
	cp.mu.Lock()
	certPEM, keyPEM, err := cp.pki.clientCert(user, groups...)
	cp.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(cp.ports[APIServer]),
		TLSClientConfig: rest.TLSClientConfig{CAData: cp.pki.caPEM, CertData: certPEM, KeyData: keyPEM},
		QPS:             -1,
		UserAgent:       "controlplane/" + user,
	}, nil
}

// UserKubeconfig writes a kubeconfig for user in groups (see UserConfig)
// into the control plane's directory and returns its path.
func (cp *ControlPlane) UserKubeconfig(user string, groups ...string) (string, error) {
	cfg, err := cp.UserConfig(user, groups...)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(cp.dir, "user-*.kubeconfig")
	if err != nil {
		return "", err
	}
	f.Close()
	return f.Name(), WriteKubeconfig(f.Name(), cfg, user)
}

// WriteKubeconfig writes cfg (host, CA, client certificate; those it has)
// as a kubeconfig at path with one context, for user.
func WriteKubeconfig(path string, cfg *rest.Config, user string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["controlplane"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["controlplane"] = &clientcmdapi.Context{Cluster: "controlplane", AuthInfo: user}
	kc.CurrentContext = "controlplane"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("controlplane: kubeconfig %s: %w", path, err)
	}
	return nil
}
