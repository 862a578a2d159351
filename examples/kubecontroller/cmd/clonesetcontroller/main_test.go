package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/admission"
	"github.com/clonecore/cloneset/examples/kubecontroller"
	"github.com/clonecore/cloneset/examples/kubecontroller/config"
	"github.com/clonecore/cloneset/model"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestFlagDefaults(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // the default, not the environment's
	o, err := parseFlags(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := options{
		cloneSetVersion:        "v1beta1",
		workers:                1,
		leaderElectionID:       defaultLeaderElectionID,
		leaseDuration:          15 * time.Second,
		renewDeadline:          10 * time.Second,
		retryPeriod:            2 * time.Second,
		metricsBindAddress:     "0",
		healthProbeBindAddress: ":8081",
		concurrentBatchCreates: true,
		directInformers:        true,
		maxConcurrentCreates:   32,
		webhooks:               defaultWebhooks,
		gomaxprocs:             1,
	}
	if o != want {
		t.Errorf("defaults %+v, want %+v", o, want)
	}
	// A dry run leaves the webhooks to the running deployment.
	if o, err := parseFlags([]string{"--dry-run"}, &bytes.Buffer{}); err != nil || o.webhooks.enabled {
		t.Errorf("--dry-run: webhooks %v, %v; want off", o.webhooks.enabled, err)
	}
}

// defaultWebhooks are the webhook flags' defaults.
var defaultWebhooks = webhookOptions{
	enabled: true, port: 9443, serviceName: "clonesetcontroller-webhook-service", secretName: "clonesetcontroller-webhook-certs",
	caValidity: 10 * 365 * 24 * time.Hour, servingValidity: 365 * 24 * time.Hour,
}

func TestFlagsParse(t *testing.T) {
	o, err := parseFlags([]string{
		"--kubeconfig", "/k", "--namespace", "prod", "--cloneset-version", "v1alpha1", "--workers", "4",
		"--leader-elect", "--leader-election-id", "lease", "--leader-election-namespace", "kube-system",
		"--metrics-bind-address", ":8080", "--health-probe-bind-address", "0", "--server-version", "v1.31.4",
		"--leader-election-lease-duration", "4s", "--leader-election-renew-deadline", "3s", "--leader-election-retry-period", "500ms",
		"--pprof-bind-address", "127.0.0.1:6060", "--kube-api-qps", "30", "--kube-api-burst", "50", "--kube-api-compression",
		"--webhook-port", "10443", "--webhook-bind-host", "127.0.0.1", "--webhook-namespace", "ops", "--webhook-service-name", "hooks",
		"--webhook-secret-name", "certs", "--webhook-url-host", "127.0.0.1:8443", "--webhook-ca-validity", "2h", "--webhook-cert-validity", "30m",
		"--feature-gates", "ResourcesDeletionProtection=true", "--concurrent-batch-creates=false",
		"--max-concurrent-creates", "8", "--kube-api-watch-http2", "--kube-api-http2", "--direct-informers=false", "--gomaxprocs", "3",
	}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := options{
		kubeconfig: "/k", namespace: "prod", cloneSetVersion: "v1alpha1", workers: 4,
		leaderElect: true, leaderElectionID: "lease", leaderElectionNamespace: "kube-system",
		leaseDuration: 4 * time.Second, renewDeadline: 3 * time.Second, retryPeriod: 500 * time.Millisecond,
		metricsBindAddress: ":8080", healthProbeBindAddress: "0", serverVersion: "v1.31.4",
		pprofBindAddress: "127.0.0.1:6060", kubeAPIQPS: 30, kubeAPIBurst: 50, kubeAPICompression: true,
		webhooks: webhookOptions{enabled: true, port: 10443, bindHost: "127.0.0.1", namespace: "ops", serviceName: "hooks", secretName: "certs",
			urlHost: "127.0.0.1:8443", caValidity: 2 * time.Hour, servingValidity: 30 * time.Minute},
		featureGates: "ResourcesDeletionProtection=true", maxConcurrentCreates: 8, kubeAPIWatchHTTP2: true, gomaxprocs: 3,
	}
	want.kubeAPIHTTP2 = true
	if o != want {
		t.Errorf("parsed %+v, want %+v", o, want)
	}
	if o, err := parseFlags([]string{"--dry-run"}, &bytes.Buffer{}); err != nil || !o.dryRun {
		t.Errorf("--dry-run: %+v %v", o, err)
	}
	if o, err := parseFlags([]string{"--dry-run", "--enable-webhooks", "--webhook-cert-dir", "/certs"}, &bytes.Buffer{}); err != nil || !o.webhooks.enabled || o.webhooks.certDir != "/certs" {
		t.Errorf("--dry-run with webhooks and certificates given: %+v %v", o.webhooks, err)
	}
	if o, err := parseFlags([]string{"--enable-webhooks=false"}, &bytes.Buffer{}); err != nil || o.webhooks.enabled {
		t.Errorf("--enable-webhooks=false: %+v %v", o.webhooks, err)
	}
}

// TestGOMAXPROCSFlag: one thread by default; a GOMAXPROCS variable is
// honoured (the flag then leaves Go's choice) unless the flag is given.
func TestGOMAXPROCSFlag(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want int
	}{
		{"", nil, 1},
		{"4", nil, 0},
		{"4", []string{"--gomaxprocs", "2"}, 2},
		{"", []string{"--gomaxprocs", "0"}, 0},
	} {
		t.Setenv("GOMAXPROCS", tc.env)
		o, err := parseFlags(tc.args, &bytes.Buffer{})
		if err != nil || o.gomaxprocs != tc.want {
			t.Errorf("GOMAXPROCS=%q %q: gomaxprocs %d (%v), want %d", tc.env, tc.args, o.gomaxprocs, err, tc.want)
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cloneset-version", "v1"}, "--cloneset-version"},
		{[]string{"--workers", "0"}, "--workers"},
		{[]string{"--gomaxprocs", "-1"}, "--gomaxprocs"},
		{[]string{"--max-concurrent-creates", "-1"}, "--max-concurrent-creates"},
		{[]string{"--leader-elect", "--leader-election-id", ""}, "--leader-election-id"},
		{[]string{"--dry-run", "--leader-elect"}, "--dry-run and --leader-elect"},
		{[]string{"--leader-election-lease-duration", "5s", "--leader-election-renew-deadline", "5s"}, "want lease duration > renew deadline"},
		{[]string{"--leader-election-retry-period", "0s"}, "want lease duration > renew deadline > retry period > 0"},
		{[]string{"--server-version", "latest"}, "--server-version"},
		{[]string{"--kube-api-qps", "-1"}, "--kube-api-qps -1"},
		{[]string{"--kube-api-qps", "NaN"}, "--kube-api-qps NaN"},
		{[]string{"--kube-api-qps", "30", "--kube-api-burst", "-5"}, "--kube-api-burst -5"},
		{[]string{"--kube-api-burst", "50"}, "--kube-api-burst 50 without --kube-api-qps"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{[]string{"--dry-run", "--enable-webhooks"}, "--webhook-cert-dir"},
		{[]string{"--webhook-port", "0"}, "--webhook-port"},
		{[]string{"--webhook-cert-validity", "0s"}, "--webhook-cert-validity"},
		{[]string{"--webhook-secret-name", ""}, "--webhook-secret-name"},
		{[]string{"--feature-gates", "NoSuchGate=true"}, "--feature-gates"},
		{[]string{"--feature-gates", "CloneSetShortHash=maybe"}, "--feature-gates"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		_, err := parseFlags(tc.args, &bytes.Buffer{})
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want a usage error naming %s", tc.args, err, tc.want)
		}
		// run refuses it before it connects to anything.
		if err := run(context.Background(), tc.args, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, errUsage) {
			t.Errorf("run %q: %v, want a usage error", tc.args, err)
		}
	}
}

func TestHelpListsEveryFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"kubeconfig", "namespace", "cloneset-version", "workers", "leader-elect", "leader-election-id",
		"leader-election-namespace", "metrics-bind-address", "health-probe-bind-address", "dry-run", "server-version",
		"pprof-bind-address", "kube-api-qps", "kube-api-burst", "kube-api-compression", "kube-api-http2", "kube-api-watch-http2", "direct-informers",
		"concurrent-batch-creates", "max-concurrent-creates", "enable-webhooks", "webhook-port", "webhook-bind-host", "webhook-cert-dir", "webhook-namespace", "webhook-service-name",
		"webhook-secret-name", "webhook-url-host", "webhook-ca-validity", "webhook-cert-validity", "feature-gates"} {
		if !strings.Contains(stdout.String(), "-"+f+" ") && !strings.Contains(stdout.String(), "-"+f+"\n") {
			t.Errorf("-h does not list --%s:\n%s", f, stdout.String())
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("-h wrote to stderr: %s", stderr.String())
	}
}

// TestRateLimit: no client-side limit by default (QPS -1, whatever the
// kubeconfig's client had), else the rate and the burst given (client-go's
// default burst when none is).
func TestRateLimit(t *testing.T) {
	for _, tc := range []struct {
		qps       float64
		burst     int
		wantQPS   float32
		wantBurst int
	}{
		{0, 0, -1, 0},
		{30, 50, 30, 50},
		{2.5, 0, 2.5, rest.DefaultBurst},
	} {
		cfg := &rest.Config{QPS: 5, Burst: 7}
		setRateLimit(cfg, tc.qps, tc.burst)
		if cfg.QPS != tc.wantQPS || cfg.Burst != tc.wantBurst {
			t.Errorf("--kube-api-qps %v --kube-api-burst %d: QPS %v burst %d, want %v and %d", tc.qps, tc.burst, cfg.QPS, cfg.Burst, tc.wantQPS, tc.wantBurst)
		}
	}
}

// seenRequest is what a TLS test server saw of the client's request for
// the server's version, made as run makes it (clientConfig, discovery) with
// flag: its Accept-Encoding and its HTTP major version.
func seenRequest(t *testing.T, flag string) (acceptEncoding string, protoMajor int) {
	t.Helper()
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding, protoMajor = r.Header.Get("Accept-Encoding"), r.ProtoMajor
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"major": "1", "minor": "37", "gitVersion": "v1.37.2"}`)
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	o, err := parseFlags([]string{"--kubeconfig", writeKubeconfig(t, s.URL), flag}, &bytes.Buffer{})
	must(t, err)
	cfg, err := clientConfig(o)
	must(t, err)
	dc, err := discoveryClient(cfg)
	must(t, err)
	_, err = readServerVersion(dc)
	must(t, err)
	return acceptEncoding, protoMajor
}

// TestCompression: the client asks for no compressed responses unless
// --kube-api-compression says so (a TLS server: client-go uses Go's default
// transport, which compresses whatever the configuration says, for plain
// HTTP without TLS settings).
func TestCompression(t *testing.T) {
	for _, compression := range []bool{false, true} {
		seen, _ := seenRequest(t, fmt.Sprintf("--kube-api-compression=%t", compression))
		if asked := strings.Contains(seen, "gzip"); asked != compression {
			t.Errorf("--kube-api-compression=%t: the client sent Accept-Encoding %q", compression, seen)
		}
	}
}

// TestHTTP2: the client talks HTTP/1.1 to a server that offers HTTP/2 too,
// and HTTP/2 with --kube-api-http2.
func TestHTTP2(t *testing.T) {
	for _, http2 := range []bool{true, false} {
		_, proto := seenRequest(t, fmt.Sprintf("--kube-api-http2=%t", http2))
		if want := map[bool]int{true: 2, false: 1}[http2]; proto != want {
			t.Errorf("--kube-api-http2=%t: the server saw HTTP/%d, want HTTP/%d", http2, proto, want)
		}
	}
}

// namedConfig is a client configuration and what it is for.
type namedConfig struct {
	what string
	cfg  *rest.Config
}

// bothClients are the configurations run makes, with args and a kubeconfig
// of the server at url, for the informers' client and for the other
// requests' client, in that order.
func bothClients(t *testing.T, url string, args ...string) []namedConfig {
	t.Helper()
	o, err := parseFlags(append([]string{"--kubeconfig", writeKubeconfig(t, url)}, args...), &bytes.Buffer{})
	must(t, err)
	cfg, err := clientConfig(o)
	must(t, err)
	return []namedConfig{{"the informers' client", cacheClientConfig(cfg, o)}, {"the other requests' client", cfg}}
}

// TestWatchesOverHTTP1: the informers list and watch over HTTP/1.1 unless
// --kube-api-watch-http2 says HTTP/2; the other requests follow
// --kube-api-http2 alone.
func TestWatchesOverHTTP1(t *testing.T) {
	for _, tc := range []struct {
		flags      []string
		wantWatch  int
		wantOthers int
	}{
		{nil, 1, 1},
		{[]string{"--kube-api-watch-http2"}, 2, 1},
		{[]string{"--kube-api-http2"}, 1, 2},
		{[]string{"--kube-api-http2", "--kube-api-watch-http2"}, 2, 2},
	} {
		var proto int
		s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			proto = r.ProtoMajor
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"major": "1", "minor": "37", "gitVersion": "v1.37.2"}`)
		}))
		s.EnableHTTP2 = true
		s.StartTLS()
		t.Cleanup(s.Close)
		for i, c := range bothClients(t, s.URL, tc.flags...) {
			hc, err := rest.HTTPClientFor(c.cfg)
			must(t, err)
			resp, err := hc.Get(s.URL + "/version")
			must(t, err)
			resp.Body.Close()
			if want := []int{tc.wantWatch, tc.wantOthers}[i]; proto != want {
				t.Errorf("%v: %s talked HTTP/%d, want HTTP/%d", tc.flags, c.what, proto, want)
			}
		}
	}
}

// TestInformersReadPodsWithoutManagedFields: the informers' client drops
// a pod list's managedFields before the decode (wiretrim), the client of the
// other requests does not.
func TestInformersReadPodsWithoutManagedFields(t *testing.T) {
	pods := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, Items: []corev1.Pod{{
		ObjectMeta: metav1.ObjectMeta{Name: "web-a", Namespace: "default",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate}}},
	}}}
	codec := clientgoscheme.Codecs.CodecForVersions(protobufSerializer(t), nil, corev1.SchemeGroupVersion, nil)
	var body bytes.Buffer
	must(t, codec.Encode(pods, &body))
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		w.Write(body.Bytes())
	}))
	t.Cleanup(s.Close)
	for i, c := range bothClients(t, s.URL) {
		hc, err := rest.HTTPClientFor(c.cfg)
		must(t, err)
		resp, err := hc.Get(s.URL + "/api/v1/pods")
		must(t, err)
		var read bytes.Buffer
		_, err = read.ReadFrom(resp.Body)
		resp.Body.Close()
		must(t, err)
		got := &corev1.PodList{}
		_, _, err = protobufSerializer(t).Decode(read.Bytes(), nil, got)
		must(t, err)
		if want := []int{0, 1}[i]; len(got.Items) != 1 || len(got.Items[0].ManagedFields) != want {
			t.Errorf("%s read %+v, want the pod with %d managedFields entries", c.what, got.Items, want)
		}
	}
}

// protobufSerializer is client-go's protobuf serializer of the built-in
// types.
func protobufSerializer(t *testing.T) runtime.Serializer {
	t.Helper()
	for _, info := range clientgoscheme.Codecs.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeProtobuf {
			return info.Serializer
		}
	}
	t.Fatal("client-go's scheme has no protobuf serializer")
	return nil
}

// TestWatchKeepAliveFindsADeadConnectionWithin30s: an idle connection over
// HTTP/1.1 (the informers', the other requests') is closed when its peer is silent for 30 s at most (the
// idle time, then every probe unanswered), no later than HTTP/2's health
// check would.
func TestWatchKeepAliveFindsADeadConnectionWithin30s(t *testing.T) {
	k := http1KeepAlive
	if !k.Enable || k.Idle <= 0 || k.Interval <= 0 || k.Count <= 0 {
		t.Fatalf("keep-alives %+v: want every setting given", k)
	}
	if dead := k.Idle + time.Duration(k.Count)*k.Interval; dead > 30*time.Second {
		t.Errorf("keep-alives %+v find a dead connection after %s, want 30 s at most", k, dead)
	}
}

func TestMissingKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nothing")
	err := run(context.Background(), []string{"--kubeconfig", path}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v, want an error naming %s", err, path)
	}
}

// fakeAPIServer answers GET /version with gitVersion (404 when empty) and,
// with cloneSets, the discovery of apps.kruise.io/v1beta1 with CloneSets in
// it (404 without); the test's end stops it.
func fakeAPIServer(t *testing.T, gitVersion string, cloneSets bool) *httptest.Server {
	t.Helper()
	answers := map[string]string{}
	if cloneSets {
		answers["/apis/apps.kruise.io/v1beta1"] = `{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apps.kruise.io/v1beta1",
  "resources": [{"name": "clonesets", "singularName": "cloneset", "namespaced": true, "kind": "CloneSet", "verbs": ["get", "list"]}]}`
	}
	if gitVersion != "" {
		answers["/version"] = fmt.Sprintf(`{"major": "1", "minor": "37", "gitVersion": %q}`, gitVersion)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestReadServerVersion(t *testing.T) {
	for _, tc := range []struct {
		gitVersion, want, err string
	}{
		{gitVersion: "v1.37.2", want: "v1.37.2"},
		{gitVersion: "v1.31.4-gke.1000", want: "v1.31.4-gke.1000"},
		{gitVersion: "", err: "--server-version"},
		{gitVersion: "yesterday", err: "does not parse"},
	} {
		dc, err := discoveryClient(&rest.Config{Host: fakeAPIServer(t, tc.gitVersion, true).URL})
		must(t, err)
		got, err := readServerVersion(dc)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("server version %q: read %q, %v; want %q, an error with %q", tc.gitVersion, got, err, tc.want, tc.err)
		}
	}
}

func TestCheckServed(t *testing.T) {
	for _, served := range []bool{true, false} {
		dc, err := discoveryClient(&rest.Config{Host: fakeAPIServer(t, "v1.37.2", served).URL})
		must(t, err)
		err = checkServed(dc, kubecontroller.CloneSetV1beta1)
		if served != (err == nil) || err != nil && !strings.Contains(err.Error(), "kubectl apply -f config/manifests/") {
			t.Errorf("CloneSets served %v: %v", served, err)
		}
		if err := checkServed(dc, kubecontroller.CloneSetV1alpha1); err == nil {
			t.Errorf("v1alpha1 is not served, and was found")
		}
	}
}

// writeKubeconfig writes a kubeconfig for the server at url (its
// certificate not verified when url is https).
func writeKubeconfig(t *testing.T, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	must(t, os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: %q, insecure-skip-tls-verify: %t}}]
users: [{name: fake, user: {token: t}}]
contexts: [{name: fake, context: {cluster: fake, user: fake}}]
current-context: fake
`, url, strings.HasPrefix(url, "https:"))), 0o600))
	return path
}

// TestRunWithoutTheCRD: run reads the kubeconfig, and stops with a clear
// error when the server does not serve CloneSets, before it starts anything.
func TestRunWithoutTheCRD(t *testing.T) {
	kubeconfig := writeKubeconfig(t, fakeAPIServer(t, "v1.37.2", false).URL)
	err := run(context.Background(), []string{"--kubeconfig", kubeconfig}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "kubectl apply -f config/manifests/") {
		t.Fatalf("err %v, want the CRD named", err)
	}
}

// TestRunLogsTheServerVersionAndStops: run asks the server its version (or
// takes --server-version), logs it and where it comes from, starts the
// manager, and returns nil once its context ends (as on SIGINT or SIGTERM),
// here on a server that serves nothing but discovery; twice in one process.
func TestRunLogsTheServerVersionAndStops(t *testing.T) {
	kubeconfig := writeKubeconfig(t, fakeAPIServer(t, "v1.37.2", true).URL)
	for _, tc := range []struct {
		args    []string
		version string
		from    string
	}{
		{[]string{"--enable-webhooks=false"}, "v1.37.2", `serverVersionFrom="the API server"`},
		{[]string{"--server-version", "v1.31.0", "--dry-run", "--workers", "2"}, "v1.31.0", "serverVersionFrom=--server-version"},
		// The webhooks on, their certificates self-managed: the fake
		// server has no Secret to give, the sync keeps failing, the stop
		// is clean.
		{[]string{"--webhook-namespace", "ops", "--webhook-bind-host", "127.0.0.1", "--webhook-port", freePort(t)}, "v1.37.2", "webhooks=true"},
		// Image pre-download asked for on a server without ImagePullJobs:
		// said once, and the controller runs.
		{[]string{"--enable-webhooks=false", "--feature-gates", "PreDownloadImageForInPlaceUpdate=true"}, "v1.37.2",
			"the API server does not serve apps.kruise.io/v1beta1 ImagePullJob: no image pre-download"},
	} {
		var stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		start := time.Now()
		err := run(ctx, append([]string{"--kubeconfig", kubeconfig, "--health-probe-bind-address", "0", "--gomaxprocs", "0"}, tc.args...), &bytes.Buffer{}, &stderr)
		cancel()
		log := stderr.String()
		if err != nil || !strings.Contains(log, "msg=stopped") {
			t.Errorf("%q: run returned %v; want nil and a stop logged:\n%s", tc.args, err, log)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("%q: stopping took %s", tc.args, d)
		}
		if !strings.Contains(log, "serverVersion="+tc.version) || strings.Count(log, tc.from) != 1 {
			t.Errorf("%q: the log does not show server version %s, or %q once:\n%s", tc.args, tc.version, tc.from, log)
		}
	}
}

// TestPprofServed: with --pprof-bind-address the manager serves
// net/http/pprof there while it runs; without it nothing listens.
func TestPprofServed(t *testing.T) {
	kubeconfig := writeKubeconfig(t, fakeAPIServer(t, "v1.37.2", true).URL)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	address := l.Addr().String()
	must(t, l.Close())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, []string{"--kubeconfig", kubeconfig, "--health-probe-bind-address", "0", "--enable-webhooks=false", "--pprof-bind-address", address, "--gomaxprocs", "0"}, &bytes.Buffer{}, &stderr)
	}()
	var served bool
	for deadline := time.Now().Add(10 * time.Second); !served && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + address + "/debug/pprof/cmdline")
		if err == nil {
			served = resp.StatusCode == http.StatusOK
			resp.Body.Close()
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !served {
		t.Fatalf("nothing served /debug/pprof/ on %s:\n%s", address, stderr.String())
	}
	if o, err := parseFlags(nil, &bytes.Buffer{}); err != nil || o.pprofBindAddress != "" {
		t.Errorf("the default pprof address is %q (%v), want off", o.pprofBindAddress, err)
	}
}

// freePort returns a loopback port free at the time.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// TestParseGates: OpenKruise's gates of the controller and of the webhooks
// in one flag, each at its default when not named.
func TestParseGates(t *testing.T) {
	controller, hooks, err := parseGates("InPlaceWorkloadVerticalScaling=true, ResourcesDeletionProtection=true,InPlaceUpdateEnvFromMetadata=false")
	must(t, err)
	want := model.DefaultFeatureGates()
	want.InPlaceWorkloadVerticalScaling, want.InPlaceUpdateEnvFromMetadata = true, false
	if controller != want || !hooks.ResourcesDeletionProtection || hooks.TemplateNoDefaults {
		t.Errorf("gates %+v %+v", controller, hooks)
	}
	if controller, _, err := parseGates("PreDownloadImageForInPlaceUpdate=true"); err != nil || !controller.PreDownloadImageForInPlaceUpdate {
		t.Errorf("PreDownloadImageForInPlaceUpdate=true: %+v %v", controller, err)
	}
	controller, hooks, err = parseGates("")
	if err != nil || controller != model.DefaultFeatureGates() || hooks != (admission.Gates{}) {
		t.Errorf("no gates: %+v %+v %v, want the defaults", controller, hooks, err)
	}
	if _, _, err := parseGates("Nope=true"); err == nil || !strings.Contains(err.Error(), "CloneSetShortHash") || !strings.Contains(err.Error(), "TemplateNoDefaults") {
		t.Errorf("an unknown gate: %v, want an error naming the known ones", err)
	}
}

// TestRunNeedsTheWebhookNamespace: outside a cluster, the self-managed
// certificates need the namespace of their Secret.
func TestRunNeedsTheWebhookNamespace(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "")
	kubeconfig := writeKubeconfig(t, fakeAPIServer(t, "v1.37.2", true).URL)
	err := run(context.Background(), []string{"--kubeconfig", kubeconfig}, &bytes.Buffer{}, &bytes.Buffer{})
	if _, statErr := os.Stat(serviceAccountNamespace); statErr == nil {
		t.Skip("running in a pod: the namespace is found")
	}
	if err == nil || !strings.Contains(err.Error(), "--webhook-namespace") {
		t.Fatalf("err %v, want one naming --webhook-namespace", err)
	}
}

// TestReadOnlyClientRefusesWrites: every write of the dry run's client
// fails and changes nothing; reads pass.
func TestReadOnlyClientRefusesWrites(t *testing.T) {
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	inner := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(pod.DeepCopy()).WithStatusSubresource(&corev1.Pod{}).Build()
	c := readOnlyClient{inner}
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	cloneSet := &unstructured.Unstructured{}
	cloneSet.SetGroupVersionKind(kubecontroller.CloneSetV1beta1)
	cloneSet.SetNamespace("default")
	cloneSet.SetName("web")
	for name, write := range map[string]func() error{
		"create": func() error {
			return c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "default"}})
		},
		"update":                func() error { return c.Update(ctx, pod.DeepCopy()) },
		"patch":                 func() error { return c.Patch(ctx, pod.DeepCopy(), patch) },
		"delete":                func() error { return c.Delete(ctx, pod.DeepCopy()) },
		"delete all of":         func() error { return c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace("default")) },
		"status patch":          func() error { return c.Status().Patch(ctx, pod.DeepCopy(), patch) },
		"status update":         func() error { return c.Status().Update(ctx, pod.DeepCopy()) },
		"resize patch":          func() error { return c.SubResource("resize").Patch(ctx, pod.DeepCopy(), patch) },
		"CloneSet status patch": func() error { return c.Status().Patch(ctx, cloneSet, patch) },
	} {
		if err := write(); err == nil || !strings.Contains(err.Error(), "dry run") {
			t.Errorf("%s: %v, want refused", name, err)
		}
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods); err != nil || len(pods.Items) != 1 || len(pods.Items[0].Labels) > 0 {
		t.Errorf("after the refused writes: %v %+v", err, pods.Items)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestManifestsMatchTheBinary: the Deployment of config/ runs the binary
// with flags it accepts, leader election on and the webhooks self-managed;
// the Role grants the Lease of the default leader-election id and the
// Secret of the default secret name; the Service and the webhook
// configurations are the ones the binary keeps.
func TestManifestsMatchTheBinary(t *testing.T) {
	objs, err := config.Objects()
	must(t, err)
	var deployment *appsv1.Deployment
	var role *rbacv1.Role
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			deployment = o
		case *rbacv1.Role:
			role = o
		}
	}
	if deployment == nil || role == nil {
		t.Fatal("no Deployment or no Role in config/")
	}
	args := deployment.Spec.Template.Spec.Containers[0].Args
	o, err := parseFlags(args, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("the Deployment's args %q: %v", args, err)
	}
	if !o.leaderElect || !o.webhooks.enabled || o.webhooks.certDir != "" || o.webhooks.urlHost != "" {
		t.Errorf("the Deployment runs with leader election %v, webhooks %v, certificates from %q, URL host %q; want leader election and self-managed webhooks through the Service",
			o.leaderElect, o.webhooks.enabled, o.webhooks.certDir, o.webhooks.urlHost)
	}
	granted := map[string][]string{}
	for _, r := range role.Rules {
		for _, res := range r.Resources {
			granted[res] = append(granted[res], r.ResourceNames...)
		}
	}
	if !slices.Contains(granted["leases"], o.leaderElectionID) {
		t.Errorf("the Role grants the Leases %v, not the binary's %s", granted["leases"], o.leaderElectionID)
	}
	if !slices.Contains(granted["secrets"], o.webhooks.secretName) {
		t.Errorf("the Role grants the Secrets %v, not the binary's %s", granted["secrets"], o.webhooks.secretName)
	}
}
